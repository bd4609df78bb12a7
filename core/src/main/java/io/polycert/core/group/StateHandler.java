package io.polycert.core.group;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Transfers application state to a joining member. The state is written on the delivery thread right after a
 * view is delivered, so it reflects exactly the messages ordered before that view; the joiner reads it before it
 * delivers anything, then delivers the messages ordered after the view. Nothing is missed or delivered twice.
 */
public interface StateHandler {

    /** Writes the state as of the last delivered message (called on the delivery thread). */
    void writeState(OutputStream out) throws IOException;

    /** Replaces this member's state with one written by {@link #writeState} (called before any delivery). */
    void readState(InputStream in) throws IOException;

    /** For members that keep no state: nothing is transferred. */
    StateHandler NONE = new StateHandler() {
        @Override
        public void writeState(OutputStream out) {
        }

        @Override
        public void readState(InputStream in) {
        }
    };
}
