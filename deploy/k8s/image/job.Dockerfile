# The job's image: Flink 2.3 (the project's flink.version) with the shaded job jar in usrlib,
# where application mode finds it (jarURI local:///opt/flink/usrlib/effonce-job.jar).
# Build context: job/target (see README.md).
FROM flink:2.3.0-scala_2.12-java17

# Checkpoints, savepoints and HA metadata go to S3 (flink-deployment.yaml); Flink loads a file
# system only as a plugin, so the Presto S3 plugin shipped in opt/ is enabled here.
RUN mkdir -p /opt/flink/plugins/s3-fs-presto \
    && cp /opt/flink/opt/flink-s3-fs-presto-*.jar /opt/flink/plugins/s3-fs-presto/

COPY --chown=flink:flink effonce-job-0.1.0-SNAPSHOT-job.jar /opt/flink/usrlib/effonce-job.jar
