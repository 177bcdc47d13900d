package dev.onceflow.spi.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * {@link ForwardingTransactionalWriter} forwards every method of {@link TransactionalWriter},
 * default methods included. The methods are found by reflection, so a method added to the SPI
 * later fails these tests until the forwarding type passes it on too. When one fails: add an
 * override to {@code ForwardingTransactionalWriter} that calls the same method of the delegate.
 */
class ForwardingTransactionalWriterTest {

    /** What a delegate's preCommitAsync returns: a handle whose sync has not finished. */
    private static final PreCommitted<Object> STILL_SYNCING = new PreCommitted<>("pre-committed",
            new CompletableFuture<>());
    /** What the delegate returns from each method that returns an object, by method name. */
    private static final Map<String, Object> ANSWERS = new ConcurrentHashMap<>();

    @Test
    void overridesEveryMethodOfTheInterfaceDefaultsIncluded() {
        List<Method> methods = interfaceMethods();
        List<String> notOverridden = new ArrayList<>();
        for (Method method : methods) {
            try {
                ForwardingTransactionalWriter.class.getDeclaredMethod(method.getName(), method.getParameterTypes());
            } catch (NoSuchMethodException e) {
                notOverridden.add(method.toGenericString());
            }
        }

        assertThat(methods).as("the interface's methods, found by reflection").extracting(Method::getName)
                .contains("preCommitAsync", "preCommit", "close");
        assertThat(notOverridden).as("methods of TransactionalWriter that ForwardingTransactionalWriter inherits "
                + "instead of forwarding; a wrapper would silently lose what its delegate does for them").isEmpty();
    }

    @Test
    void everyMethodReachesTheSameMethodOfTheDelegateWithItsArgumentsAndResult() throws Exception {
        for (Method method : interfaceMethods()) {
            List<Call> calls = new ArrayList<>();
            TransactionalWriter<Object, Object> forwarding = new ForwardingTransactionalWriter<>(recording(calls)) {
            };
            Object[] args = sampleArguments(method);

            Object result = method.invoke(forwarding, args);

            assertThat(calls).as(method.getName()).containsExactly(new Call(method.getName(), Arrays.asList(args)));
            assertThat(result).as(method.getName() + "'s result").isSameAs(answer(method));
        }
    }

    @Test
    void preCommitAsyncReachesTheDelegatesAsynchronousPreCommit() throws Exception {
        List<Call> calls = new ArrayList<>();
        TransactionalWriter<Object, Object> forwarding = new ForwardingTransactionalWriter<>(recording(calls)) {
        };

        PreCommitted<Object> preCommitted = forwarding.preCommitAsync("txn-4");

        assertThat(calls).as("not the delegate's synchronous preCommit, through the interface's default")
                .containsExactly(new Call("preCommitAsync", List.of("txn-4")));
        assertThat(preCommitted).isSameAs(STILL_SYNCING);
        assertThat(preCommitted.durable().toCompletableFuture()).as("the delegate's stage, still running").isNotDone();
    }

    private record Call(String method, List<Object> args) {
    }

    private static List<Method> interfaceMethods() {
        return Arrays.stream(TransactionalWriter.class.getMethods())
                .filter(method -> !Modifier.isStatic(method.getModifiers()))
                .toList();
    }

    /** A writer that records each call and answers {@link #answer}; default methods are recorded as called, not run. */
    @SuppressWarnings("unchecked")
    private static TransactionalWriter<Object, Object> recording(List<Call> calls) {
        return (TransactionalWriter<Object, Object>) Proxy.newProxyInstance(TransactionalWriter.class.getClassLoader(),
                new Class<?>[] {TransactionalWriter.class}, (proxy, method, args) -> {
                    calls.add(new Call(method.getName(), args == null ? List.of() : Arrays.asList(args)));
                    return answer(method);
                });
    }

    /** One object per method, so a result passed back from another method than the one called shows. */
    private static Object answer(Method method) {
        Class<?> type = method.getReturnType();
        if (type == void.class) {
            return null;
        }
        if (type == PreCommitted.class) {
            return STILL_SYNCING;
        }
        if (type.isPrimitive()) {
            return primitive(type, 0);
        }
        return ANSWERS.computeIfAbsent(method.getName(), name -> "result of " + name);
    }

    /** A distinct argument per position: the number i for primitives, a string where one fits, else null. */
    private static Object[] sampleArguments(Method method) {
        Class<?>[] types = method.getParameterTypes();
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            if (types[i].isPrimitive()) {
                args[i] = primitive(types[i], 7 + i);
            } else if (types[i].isAssignableFrom(String.class)) {
                args[i] = "argument " + i + " of " + method.getName();
            }
        }
        return args;
    }

    private static Object primitive(Class<?> type, int value) {
        if (type == boolean.class) {
            return value % 2 == 1;
        }
        if (type == long.class) {
            return (long) value;
        }
        if (type == int.class) {
            return value;
        }
        throw new AssertionError("no sample value of type " + type + ": add one here");
    }
}
