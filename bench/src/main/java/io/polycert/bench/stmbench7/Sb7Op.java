package io.polycert.bench.stmbench7;

/**
 * STMBench7 v1.2's operations, with the original's names, categories and read-only flags. The original also
 * names some by their earlier names: ST3 is T7, ST4 is Q4, ST5 is Q5, OP1 is Q1, OP2 is Q2, OP3 is Q3, OP4 is T8,
 * OP5 is T9; Q6 and Q7 are read-only long traversals.
 */
enum Sb7Op {
    T1("T1", Category.LONG_TRAVERSAL, true),
    T2A("T2a", Category.LONG_TRAVERSAL, false),
    T2B("T2b", Category.LONG_TRAVERSAL, false),
    T2C("T2c", Category.LONG_TRAVERSAL, false),
    T3A("T3a", Category.LONG_TRAVERSAL, false),
    T3B("T3b", Category.LONG_TRAVERSAL, false),
    T3C("T3c", Category.LONG_TRAVERSAL, false),
    T4("T4", Category.LONG_TRAVERSAL, true),
    T5("T5", Category.LONG_TRAVERSAL, false),
    T6("T6", Category.LONG_TRAVERSAL, true),
    Q6("Q6", Category.LONG_TRAVERSAL, true),
    Q7("Q7", Category.LONG_TRAVERSAL, true),

    ST1("ST1", Category.SHORT_TRAVERSAL, true),
    ST2("ST2", Category.SHORT_TRAVERSAL, true),
    ST3("ST3", Category.SHORT_TRAVERSAL, true),
    ST4("ST4", Category.SHORT_TRAVERSAL, true),
    ST5("ST5", Category.SHORT_TRAVERSAL, true),
    ST6("ST6", Category.SHORT_TRAVERSAL, false),
    ST7("ST7", Category.SHORT_TRAVERSAL, false),
    ST8("ST8", Category.SHORT_TRAVERSAL, false),
    ST9("ST9", Category.SHORT_TRAVERSAL, true),
    ST10("ST10", Category.SHORT_TRAVERSAL, false),

    OP1("OP1", Category.OPERATION, true),
    OP2("OP2", Category.OPERATION, true),
    OP3("OP3", Category.OPERATION, true),
    OP4("OP4", Category.OPERATION, true),
    OP5("OP5", Category.OPERATION, true),
    OP6("OP6", Category.OPERATION, true),
    OP7("OP7", Category.OPERATION, true),
    OP8("OP8", Category.OPERATION, true),
    OP9("OP9", Category.OPERATION, false),
    OP10("OP10", Category.OPERATION, false),
    OP11("OP11", Category.OPERATION, false),
    OP12("OP12", Category.OPERATION, false),
    OP13("OP13", Category.OPERATION, false),
    OP14("OP14", Category.OPERATION, false),
    OP15("OP15", Category.OPERATION, false),

    SM1("SM1", Category.STRUCTURE_MODIFICATION, false),
    SM2("SM2", Category.STRUCTURE_MODIFICATION, false),
    SM3("SM3", Category.STRUCTURE_MODIFICATION, false),
    SM4("SM4", Category.STRUCTURE_MODIFICATION, false),
    SM5("SM5", Category.STRUCTURE_MODIFICATION, false),
    SM6("SM6", Category.STRUCTURE_MODIFICATION, false),
    SM7("SM7", Category.STRUCTURE_MODIFICATION, false),
    SM8("SM8", Category.STRUCTURE_MODIFICATION, false);

    /** The original's operation categories, with its default ratios (percent). */
    enum Category {
        LONG_TRAVERSAL("long traversals", 5),
        SHORT_TRAVERSAL("short traversals", 40),
        OPERATION("operations", 45),
        STRUCTURE_MODIFICATION("structure modifications", 10);

        final String label;
        final int ratio;

        Category(String label, int ratio) {
            this.label = label;
            this.ratio = ratio;
        }
    }

    final String label;
    final Category category;
    final boolean readOnly;

    Sb7Op(String label, Category category, boolean readOnly) {
        this.label = label;
        this.category = category;
        this.readOnly = readOnly;
    }

    /** The operation named {@code label} (e.g. {@code T2a}, {@code ST6}). */
    static Sb7Op byLabel(String label) {
        for (Sb7Op op : values()) {
            if (op.label.equals(label)) {
                return op;
            }
        }
        throw new IllegalArgumentException("unknown STMBench7 operation '" + label + "'");
    }
}
