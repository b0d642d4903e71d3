# The relay's image: the cdc-source jar and its runtime dependencies on a Java 17 JRE.
# Build context: cdc-source/target, after `dependency:copy-dependencies` (see README.md).
FROM eclipse-temurin:17-jre

COPY relay-lib/ /opt/effonce/lib/
COPY effonce-cdc-source-0.1.0-SNAPSHOT.jar /opt/effonce/lib/

# Not root; the Deployment's fsGroup lets this user read the mounted password file.
USER 10001:10001

# Exec form: the JVM is PID 1 and gets SIGTERM, so the relay stops cleanly (exit 143) and
# commits what Kafka acknowledged.
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-cp", "/opt/effonce/lib/*", "io.effonce.cdc.LedgerRelay"]
