package io.polycert.gcs;

import org.slf4j.Logger;

/**
 * Logs through SLF4J, but warnings about dropped input at most once per second per logger, with a count of what
 * was suppressed: a flood of malformed messages must not become a flood of log lines.
 */
final class RateLimitedLog {
    private final Logger logger;
    private final String prefix;
    private long lastDropWarning;
    private long suppressed;

    RateLimitedLog(Logger logger, String prefix) {
        this.logger = logger;
        this.prefix = prefix;
    }

    void dropped(String what, Throwable cause) {
        long now = System.nanoTime();
        if (now - lastDropWarning < 1_000_000_000L && lastDropWarning != 0) {
            suppressed++;
            return;
        }
        lastDropWarning = now;
        String also = suppressed > 0 ? " (and " + suppressed + " more dropped since the last warning)" : "";
        suppressed = 0;
        logger.warn("{} dropped {}: {}{}", prefix, what, cause.toString(), also);
    }

    void info(String format, Object... args) {
        logger.info(prefix + " " + format, args);
    }

    void warn(String format, Object... args) {
        logger.warn(prefix + " " + format, args);
    }

    void error(String format, Object... args) {
        logger.error(prefix + " " + format, args);
    }

    void debug(String format, Object... args) {
        if (logger.isDebugEnabled()) {
            logger.debug(prefix + " " + format, args);
        }
    }
}
