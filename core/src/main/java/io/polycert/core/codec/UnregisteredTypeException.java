package io.polycert.core.codec;

/** A value's type is not on the codec's allow-list. The message names the type and how to register it. */
public class UnregisteredTypeException extends CodecException {
    private static final long serialVersionUID = 1L;

    private final transient Class<?> type;

    public UnregisteredTypeException(Class<?> type) {
        super("type " + type.getName() + " is not on the codec's allow-list, so its values cannot be replicated;"
                + " register it with ValueCodec.builder().register(" + type.getSimpleName()
                + ".class, <tag >= " + ValueCodec.FIRST_USER_TAG + ">, <ValueSerializer>)"
                + (type.isEnum() ? " or registerEnum(" + type.getSimpleName() + ".class, <tag>)" : ""));
        this.type = type;
    }

    /** The refused type. */
    public Class<?> type() {
        return type;
    }
}
