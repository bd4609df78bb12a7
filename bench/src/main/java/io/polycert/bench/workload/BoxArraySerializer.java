package io.polycert.bench.workload;

import io.polycert.core.VBox;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.codec.ValueSerializer;

/** Arrays of boxes on the wire: a length, then each box by id. Workloads register it for {@code VBox[]}. */
@SuppressWarnings("rawtypes")
public final class BoxArraySerializer implements ValueSerializer<VBox[]> {
    @Override
    public void write(VBox[] boxes, ValueOutput out) {
        out.writeVarInt(boxes.length);
        for (VBox<?> b : boxes) {
            out.writeBox(b);
        }
    }

    @Override
    public VBox[] read(ValueInput in) {
        VBox[] boxes = new VBox[in.readLength(1)];
        for (int i = 0; i < boxes.length; i++) {
            boxes[i] = in.readBox();
        }
        return boxes;
    }
}
