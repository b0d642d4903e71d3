package io.effonce.k8s;

import static io.effonce.k8s.Manifests.at;
import static io.effonce.k8s.Manifests.list;
import static io.effonce.k8s.Manifests.map;
import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.k8s.Manifests.Doc;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The deployment keeps the promises the project's tests rely on: savepoint upgrades, Kubernetes HA
 * on shared storage, the cluster settings of deploy/flink-conf/config.yaml, one relay at a time
 * with durable offsets, every schema file applied, and the image built for this Flink.
 */
class DeploymentShapeTest {

    private static final Manifests K8S = Manifests.load(Manifests.HOME);
    private static final Path ROOT = Manifests.ROOT;

    /** config.yaml keys the deployment sets another way, and how. */
    private static final Map<String, String> SET_ELSEWHERE =
            Map.ofEntries(
                    entry("jobmanager.rpc.address", "the operator: the JobManager's service"),
                    entry("jobmanager.bind-host", "the operator: the pod's address"),
                    entry("jobmanager.rpc.port", "the operator's default"),
                    entry("taskmanager.host", "the operator: the pod's address"),
                    entry("taskmanager.bind-host", "the operator: the pod's address"),
                    entry("rest.address", "the operator: the REST service"),
                    entry("rest.bind-address", "the operator: the pod's address"),
                    entry("rest.port", "the operator's default"),
                    entry(
                            "web.submit.enable",
                            "local cluster's jar uploads; the jar is in the image"),
                    entry("web.cancel.enable", "local cluster's REST control; Flink's default"),
                    entry("jobmanager.memory.process.size", "spec.jobManager.resource.memory"),
                    entry("taskmanager.memory.process.size", "spec.taskManager.resource.memory"),
                    entry("parallelism.default", "spec.job.parallelism"),
                    entry("execution.checkpointing.dir", "shared storage, not a local directory"),
                    entry("execution.checkpointing.savepoint-dir", "shared storage, likewise"),
                    entry("io.tmp.dirs", "the pod's own directories"),
                    entry("web.upload.dir", "the pod's own directories"),
                    entry("process.working-dir", "the pod's own directories"));

    /** Keys only a deployment on Kubernetes has. */
    private static final Set<String> KUBERNETES_ONLY =
            Set.of("high-availability.type", "high-availability.storageDir");

    private static Doc job() {
        return K8S.only("FlinkDeployment");
    }

    private static Map<String, String> flinkConfiguration() {
        return Manifests.strings(at(job().body(), "spec", "flinkConfiguration"));
    }

    @Test
    void theJobIsUpgradedThroughSavepointsWithKubernetesHaOnSharedStorage() {
        Object spec = job().body().get("spec");
        assertThat(at(spec, "job", "upgradeMode")).isEqualTo("savepoint");
        assertThat(at(spec, "job", "allowNonRestoredState"))
                .as("state of an unknown uid must fail the restore, not vanish")
                .isIn(null, false);
        Map<String, String> conf = flinkConfiguration();
        assertThat(conf).containsEntry("high-availability.type", "kubernetes");
        for (String key :
                List.of(
                        "execution.checkpointing.dir",
                        "execution.checkpointing.savepoint-dir",
                        "high-availability.storageDir")) {
            assertThat(conf.get(key))
                    .as("%s: %s must be storage every pod reaches", job().where(), key)
                    .isNotBlank()
                    .doesNotStartWith("file:///tmp");
        }
    }

    @Test
    void flinkConfigurationAgreesWithTheClusterConfigFile() {
        Path file = ROOT.resolve("deploy/flink-conf/config.yaml");
        Map<String, String> cluster = Manifests.strings(Manifests.yaml(file).get(0));
        Map<String, String> conf = flinkConfiguration();
        List<String> findings = new ArrayList<>();
        cluster.forEach(
                (key, value) -> {
                    if (!SET_ELSEWHERE.containsKey(key) && !value.equals(conf.get(key))) {
                        findings.add(
                                key + ": config.yaml " + value + ", manifest " + conf.get(key));
                    }
                });
        conf.keySet().stream()
                .filter(k -> !cluster.containsKey(k) && !KUBERNETES_ONLY.contains(k))
                .forEach(k -> findings.add(k + ": only in the manifest"));
        assertThat(findings).as("%s vs. deploy/flink-conf/config.yaml", job().where()).isEmpty();

        Object spec = job().body().get("spec");
        assertThat(at(spec, "jobManager", "resource", "memory"))
                .isEqualTo(cluster.get("jobmanager.memory.process.size"));
        assertThat(at(spec, "taskManager", "resource", "memory"))
                .isEqualTo(cluster.get("taskmanager.memory.process.size"));
    }

    @Test
    void theImageIsThisFlinkWithTheJarWhereTheDeploymentLooks() throws Exception {
        String pom = Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
        Matcher version = Pattern.compile("<flink.version>(\\d+)\\.(\\d+)\\.(\\d+)<").matcher(pom);
        assertThat(version.find()).isTrue();
        String flink = version.group(1) + "." + version.group(2) + "." + version.group(3);
        Object spec = job().body().get("spec");
        assertThat(at(spec, "flinkVersion"))
                .isEqualTo("v" + version.group(1) + "_" + version.group(2));

        List<String> dockerfile =
                Files.readAllLines(Manifests.HOME.resolve("image/job.Dockerfile")).stream()
                        .filter(l -> !l.startsWith("#") && !l.isBlank())
                        .toList();
        assertThat(dockerfile.get(0)).startsWith("FROM flink:" + flink + "-");
        String jar = String.valueOf(at(spec, "job", "jarURI"));
        assertThat(jar).startsWith("local://");
        assertThat(dockerfile)
                .anySatisfy(
                        l -> assertThat(l).startsWith("COPY ").endsWith(" " + jar.substring(8)));

        Class<?> main = Class.forName(String.valueOf(at(spec, "job", "entryClass")));
        assertThat(main.getMethod("main", String[].class)).isNotNull();
    }

    @Test
    void oneRelayAtATimeWithOffsetsThatOutliveThePod() {
        Doc relay =
                K8S.ofKind("Deployment").stream()
                        .filter(d -> "effonce-relay".equals(d.name()))
                        .findFirst()
                        .orElseThrow();
        Object spec = relay.body().get("spec");
        assertThat(at(spec, "replicas")).isEqualTo(1);
        assertThat(at(spec, "strategy", "type")).isEqualTo("Recreate");

        Map<String, Object> container = ManifestConsistencyTest.relayContainer(relay.body());
        Map<String, String> settings = new TreeMap<>();
        for (Object e : list(container.get("env"))) {
            settings.put(String.valueOf(at(e, "name")), String.valueOf(at(e, "value")));
        }
        List<String> findings = new ArrayList<>();
        Checks.pairs(list(container.get("args")), relay.where(), findings)
                .forEach((k, v) -> settings.put("--" + k, v));
        Set<String> topicSettings = new TreeSet<>(RelayFacts.variablesOf("--offsets-topic"));
        topicSettings.add("--offsets-topic");
        assertThat(settings.keySet())
                .as(
                        "%s: offsets in a Kafka topic (or change this test for a file on a"
                                + " PersistentVolumeClaim)",
                        relay.where())
                .containsAnyElementsOf(topicSettings);
    }

    @Test
    void theSchemaJobAppliesEverySqlFileThenThePasswords() throws IOException {
        List<String> sql;
        try (Stream<Path> files = Files.list(ROOT.resolve("deploy/sql"))) {
            sql =
                    files.map(f -> f.getFileName().toString())
                            .filter(f -> f.endsWith(".sql"))
                            .sorted()
                            .toList();
        }
        Map<String, Object> kustomization =
                map(Manifests.yaml(Manifests.HOME.resolve("kustomization.yaml")).get(0));
        Object generator = list(kustomization.get("configMapGenerator")).get(0);
        List<Object> files = list(at(generator, "files"));
        for (String f : sql) {
            assertThat(files).as("kustomization.yaml's configMapGenerator").contains("../sql/" + f);
        }
        files.forEach(f -> assertThat(Manifests.HOME.resolve(String.valueOf(f))).exists());

        Doc schema = K8S.only("Job");
        Object pod = at(schema.body(), "spec", "template", "spec");
        assertThat(list(at(pod, "volumes")))
                .anySatisfy(
                        v ->
                                assertThat(at(v, "configMap", "name"))
                                        .isEqualTo(at(generator, "name")));
        List<Object> command = list(at(list(at(pod, "containers")).get(0), "command"));
        List<String> applied =
                command.stream()
                        .map(String::valueOf)
                        .filter(a -> a.startsWith("--file=/sql/"))
                        .map(a -> a.substring("--file=/sql/".length()))
                        .toList();
        assertThat(applied).as("%s: files psql applies", schema.where()).containsAll(sql);
        assertThat(applied.get(applied.size() - 1)).isEqualTo("passwords.sql");
        // roles.sql grants on the tables the other two create.
        assertThat(applied.indexOf("roles.sql"))
                .isGreaterThan(applied.indexOf("ledger.sql"))
                .isGreaterThan(applied.indexOf("sink.sql"));
        assertThat(command).contains("--single-transaction", "--set=ON_ERROR_STOP=1");
    }

    @Test
    void theKustomizationListsEveryManifestButTheSecretTemplates() throws IOException {
        Map<String, Object> kustomization =
                map(Manifests.yaml(Manifests.HOME.resolve("kustomization.yaml")).get(0));
        Set<String> listed = new TreeSet<>();
        list(kustomization.get("resources")).forEach(r -> listed.add(String.valueOf(r)));
        Set<String> present;
        try (Stream<Path> files = Files.list(Manifests.HOME)) {
            present =
                    new TreeSet<>(
                            files.map(f -> f.getFileName().toString())
                                    .filter(f -> f.endsWith(".yaml"))
                                    .filter(f -> !f.equals("kustomization.yaml"))
                                    .filter(f -> !f.equals("secrets.yaml"))
                                    .toList());
        }
        assertThat(listed).isEqualTo(present);
    }
}
