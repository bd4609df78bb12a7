package io.polycert.gcs;

/** First byte of every message the engine sends. */
final class MessageType {
    static final byte DATA = 1;
    static final byte ORDER = 2;
    static final byte ACK = 3;
    /** A recovery request or report of a build before the group layer numbered its format (see {@link Wire#FORMAT}). */
    static final byte UNNUMBERED_RECOVER_REQUEST = 4;
    static final byte UNNUMBERED_RECOVER_STATE = 5;
    static final byte NEW_EPOCH = 6;
    static final byte STATE_CHUNK = 8;
    static final byte URB = 9;
    static final byte URB_ACK = 10;
    static final byte TOM_DATA = 11;
    static final byte TOM_PROPOSE = 12;
    static final byte TOM_FINAL = 13;
    static final byte DIRECT = 14;
    /** Recovery messages, which every member exchanges at every view change: they lead with {@link Wire#FORMAT}. */
    static final byte RECOVER_REQUEST = 15;
    static final byte RECOVER_STATE = 16;
    /** Several point-to-point messages to one member, sent together at the end of a burst of events. */
    static final byte BATCH = 17;

    /** Kinds of entries in the total order. */
    static final byte ENTRY_APP = 0;
    static final byte ENTRY_TOM_RESOLVE = 1;
    static final byte ENTRY_VIEW = 2;

    private MessageType() {
    }
}
