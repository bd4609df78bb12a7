package io.polycert.bench.faults;

import io.polycert.bench.workload.Workload;
import io.polycert.bench.workload.Workloads;
import java.util.Map;

/**
 * Workloads from one-line specs, like {@link Workloads#fromSpec}, plus the fault campaign's own:
 * {@code list-append:keys=10,maxLength=64,reads=3,appends=3,dup=10,history=DIR} ({@link ListAppendWorkload}) and
 * {@code bank-audit:accounts=100,audits=20,history=DIR} ({@link AuditedBankWorkload}). Any other spec goes to
 * {@link Workloads#fromSpec}. Parameter values must not contain commas (history directories included).
 */
public final class FaultWorkloads {
    private FaultWorkloads() {
    }

    /**
     * @throws IllegalArgumentException naming what is wrong with {@code spec}
     */
    public static Workload fromSpec(String spec) {
        String name = Workloads.nameOf(spec);
        if (!name.equals("list-append") && !name.equals("bank-audit")) {
            return Workloads.fromSpec(spec);
        }
        Map<String, String> p = Workloads.parametersOf(spec);
        Workload w = name.equals("list-append") ? ListAppendWorkload.fromParameters(p)
                : AuditedBankWorkload.fromParameters(p);
        if (!p.isEmpty()) {
            throw new IllegalArgumentException("unknown workload parameter(s) " + p.keySet() + " in '" + spec + "'");
        }
        return w;
    }
}
