/**
 * The allow-listed value codec: how values cross the wire between replicas without Java serialization.
 *
 * <p>{@link io.polycert.core.codec.ValueCodec} knows a fixed set of built-in types plus the application types
 * registered with a tag and a {@link io.polycert.core.codec.ValueSerializer}; anything else is refused with an
 * exception that names the type and says how to register it.
 */
package io.polycert.core.codec;
