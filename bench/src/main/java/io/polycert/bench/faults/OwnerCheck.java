package io.polycert.bench.faults;

import io.polycert.core.group.MemberId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The final-state check of partial replication: every owner of a register holds the same version and value of it.
 * Each member writes what it owns ({@link #write}); the harness compares the members' files ({@link #compare}).
 *
 * <p>File {@code owned-m<MEMBER>-p<PID>.txt}, one line per register: {@code NAME OWNER,OWNER,... VERSION DIGEST}
 * when this member owns it, {@code NAME OWNER,OWNER,... - -} when not; owners are member ids {@code HIGH:LOW}
 * (as {@code fault id} prints them), primary first, under this member's placement; the first line is
 * {@code O 1 SELF EPOCH}.
 */
public final class OwnerCheck {
    private OwnerCheck() {
    }

    /** A member id as the fault commands print it. */
    public static String id(MemberId member) {
        return member.high() + ":" + member.low();
    }

    /** A digest of a register's value: equal values give equal digests. */
    static long digest(Object value) {
        if (value instanceof long[]) {
            return Arrays.hashCode((long[]) value) * 31L + ((long[]) value).length;
        }
        return Objects.hashCode(value);
    }

    /**
     * Writes what {@code store} owns of {@code registers} to {@code file}.
     *
     * @return how many of them this member owns
     */
    public static int write(Path file, PartitionedFaultStore store, List<String> registers) {
        StringBuilder sb = new StringBuilder();
        sb.append("O 1 ").append(id(store.store().self())).append(' ').append(store.store().placementEpoch())
                .append('\n');
        String self = id(store.store().self());
        int owned = 0;
        for (String name : registers) {
            List<String> owners = new ArrayList<>();
            store.owners(name).forEach(m -> owners.add(id(m)));
            sb.append(name).append(' ').append(String.join(",", owners));
            if (owners.contains(self)) {
                owned++;
                sb.append(' ').append(store.ownedVersion(name)).append(' ').append(digest(store.ownedValue(name)));
            } else {
                sb.append(" - -");
            }
            sb.append('\n');
        }
        try {
            Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return owned;
    }

    /**
     * Compares the members' files: every member must place each register on the same owners, each owner must be
     * one of the members compared, and they must all hold one version and value of it.
     *
     * @param files each live member's file, by member index
     * @param ids each live member's id, by member index
     * @return one line per register that breaks this (empty when all agree)
     */
    public static List<String> compare(Map<Integer, Path> files, Map<Integer, String> ids) {
        Map<String, Map<Integer, String[]>> byRegister = new TreeMap<>();
        for (Map.Entry<Integer, Path> f : files.entrySet()) {
            List<String> lines;
            try {
                lines = Files.readAllLines(f.getValue(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + f.getValue(), e);
            }
            for (String line : lines.subList(1, lines.size())) {
                String[] fields = line.split(" ");
                if (fields.length != 4) {
                    throw new IllegalArgumentException("not an owner line in " + f.getValue() + ": '" + line + "'");
                }
                byRegister.computeIfAbsent(fields[0], k -> new LinkedHashMap<>()).put(f.getKey(), fields);
            }
        }
        Map<String, Integer> memberOf = new LinkedHashMap<>();
        ids.forEach((member, id) -> memberOf.put(id, member));
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Map<Integer, String[]>> e : byRegister.entrySet()) {
            String problem = compareOne(e.getValue(), memberOf, files.size());
            if (problem != null) {
                problems.add(e.getKey() + ": " + problem);
            }
        }
        return problems;
    }

    private static String compareOne(Map<Integer, String[]> reports, Map<String, Integer> memberOf, int members) {
        if (reports.size() != members) {
            return "reported by " + reports.size() + " of " + members + " members";
        }
        String owners = null;
        for (String[] r : reports.values()) {
            if (owners != null && !owners.equals(r[1])) {
                return "members place it differently: " + describe(reports);
            }
            owners = r[1];
        }
        String held = null;
        for (String owner : owners.split(",")) {
            Integer member = memberOf.get(owner);
            if (member == null) {
                return "owner " + owner + " is not a live member: " + describe(reports);
            }
            String[] r = reports.get(member);
            if (r[2].equals("-")) {
                return "r" + member + " does not hold it although it owns it: " + describe(reports);
            }
            String versionAndValue = r[2] + " " + r[3];
            if (held != null && !held.equals(versionAndValue)) {
                return "owners disagree: " + describe(reports);
            }
            held = versionAndValue;
        }
        return null;
    }

    private static String describe(Map<Integer, String[]> reports) {
        StringBuilder sb = new StringBuilder();
        reports.forEach((member, r) -> sb.append(sb.length() == 0 ? "" : "; ").append('r').append(member)
                .append(" owners ").append(r[1]).append(" version ").append(r[2]).append(" digest ").append(r[3]));
        return sb.toString();
    }
}
