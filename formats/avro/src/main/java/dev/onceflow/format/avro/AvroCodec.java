package dev.onceflow.format.avro;

import org.apache.avro.file.CodecFactory;

/**
 * How the blocks of an Avro object container file are compressed: codecs that need no native
 * library beyond the ones their jars ship (snappy loads the JNI library of snappy-java; deflate is
 * the JDK's).
 */
public enum AvroCodec {

    NULL,
    DEFLATE,
    SNAPPY;

    CodecFactory factory() {
        return switch (this) {
            case NULL -> CodecFactory.nullCodec();
            case DEFLATE -> CodecFactory.deflateCodec(CodecFactory.DEFAULT_DEFLATE_LEVEL);
            case SNAPPY -> CodecFactory.snappyCodec();
        };
    }
}
