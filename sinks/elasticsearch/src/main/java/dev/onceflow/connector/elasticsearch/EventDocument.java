package dev.onceflow.connector.elasticsearch;

import dev.onceflow.spi.record.Event;

/** The JSON body of an event's document: {@code {"id":..,"key":..,"payload":..,"count":..}}. */
record EventDocument(String id, String key, String payload, long count) {

    static EventDocument of(Event event) {
        return new EventDocument(event.id(), event.key(), event.payload(), event.count());
    }
}
