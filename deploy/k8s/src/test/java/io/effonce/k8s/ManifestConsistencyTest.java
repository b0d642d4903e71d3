package io.effonce.k8s;

import static io.effonce.k8s.Manifests.at;
import static io.effonce.k8s.Manifests.list;
import static io.effonce.k8s.Manifests.map;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.cluster.FlinkOptionKeys;
import io.effonce.k8s.Manifests.Doc;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/k8s names only what the code knows: the job's options (from its own --help), the relay's
 * options and environment variables (from its own picocli model), the operator uids the job's graph
 * really sets, and Secrets that are both defined and used. A misspelled name fails here, naming the
 * file and the name, instead of on a cluster.
 */
class ManifestConsistencyTest {

    private static final Manifests K8S = Manifests.load(Manifests.HOME);
    private static final String FLINK_CONTAINER = "flink-main-container";
    private static final String RELAY_CONTAINER = "relay";

    @TempDir Path tmp;

    private static Doc job() {
        return K8S.only("FlinkDeployment");
    }

    private static Doc relay() {
        return K8S.ofKind("Deployment").stream()
                .filter(d -> "effonce-relay".equals(d.name()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no Deployment effonce-relay"));
    }

    private static Map<String, String> jobArgs(Doc job) {
        List<String> findings = new ArrayList<>();
        Map<String, String> args =
                Checks.pairs(list(at(job.body(), "spec", "job", "args")), job.where(), findings);
        assertThat(findings).isEmpty();
        return args;
    }

    @Test
    void jobArgsNameOnlyOptionsTheJobKnows() {
        assertThat(Checks.jobOptions(job(), JobFacts.options())).isEmpty();
    }

    /** The counterfactual: the manifest's first option with its last letter lost. */
    @Test
    void aMisspelledJobOptionIsNamedWithItsFile() {
        String option = String.valueOf(list(at(job().body(), "spec", "job", "args")).get(0));
        String typo = option.substring(0, option.length() - 1);
        Doc misspelled =
                Manifests.edited(job(), body -> list(at(body, "spec", "job", "args")).set(0, typo));
        assertThat(Checks.jobOptions(misspelled, JobFacts.options()))
                .containsExactly(
                        "deploy/k8s/flink-deployment.yaml: spec.job.args: "
                                + typo
                                + " is not an option of LedgerTotalsJob (its --help lists them)");
    }

    @Test
    void flinkConfigurationNamesOnlyKeysFlinkOrTheJobKnows() {
        Set<String> known = new TreeSet<>(FlinkOptionKeys.current());
        known.addAll(JobFacts.options());
        Set<String> unknown =
                new TreeSet<>(map(at(job().body(), "spec", "flinkConfiguration")).keySet());
        unknown.removeAll(known);
        unknown.removeIf(FlinkOptionKeys::isReporterOption);
        assertThat(unknown)
                .as(
                        "%s: spec.flinkConfiguration keys neither Flink nor the job knows",
                        job().where())
                .isEmpty();
    }

    /**
     * The job's graph builds from the manifest (every value readable, the required options there),
     * and its operator uids are the ones README.md lists: savepoints map state by them.
     */
    @Test
    void theReadmeListsExactlyTheOperatorUidsTheJobSets() throws IOException {
        Set<String> graph =
                JobFacts.uids(
                        Manifests.strings(at(job().body(), "spec", "flinkConfiguration")),
                        jobArgs(job()));
        assertThat(readmeUids())
                .as("the uids deploy/k8s/README.md lists vs. those of the job's graph")
                .isEqualTo(graph);
    }

    private static Set<String> readmeUids() throws IOException {
        String readme =
                Files.readString(Manifests.HOME.resolve("README.md"), StandardCharsets.UTF_8);
        // The list runs from "Operator uids:" to the sentence's full stop (a uid has no dot).
        int start = readme.indexOf("Operator uids:");
        assertThat(start).as("deploy/k8s/README.md has an 'Operator uids:' list").isNotNegative();
        int end = readme.indexOf('.', start);
        Matcher m = Pattern.compile("`([^`]+)`").matcher(readme.substring(start, end));
        Set<String> uids = new TreeSet<>();
        while (m.find()) {
            uids.add(m.group(1));
        }
        return uids;
    }

    @Test
    void relayNamesOnlyOptionsAndVariablesTheRelayKnows() {
        assertThat(
                        Checks.relayOptions(
                                relay(),
                                RELAY_CONTAINER,
                                RelayFacts.options(),
                                RelayFacts.variables()))
                .isEmpty();
    }

    /** The counterfactual: the relay's first variable with its last letter lost. */
    @Test
    void aMisspelledRelayVariableIsNamedWithItsFile() {
        String variable =
                (String) at(list(relayContainer(relay().body()).get("env")).get(0), "name");
        String typo = variable.substring(0, variable.length() - 1);
        Doc misspelled =
                Manifests.edited(
                        relay(),
                        body ->
                                map(list(relayContainer(body).get("env")).get(0))
                                        .put("name", typo));
        assertThat(
                        Checks.relayOptions(
                                misspelled,
                                RELAY_CONTAINER,
                                RelayFacts.options(),
                                RelayFacts.variables()))
                .containsExactly(
                        "deploy/k8s/relay.yaml: container relay env: "
                                + typo
                                + " is not a variable the relay reads (RelayOptions names each"
                                + " option's variable)");
    }

    /** The relay accepts the manifest's values as its main would (password file: a stand-in). */
    @Test
    void theRelayParsesItsManifest() throws IOException {
        Path password = Files.writeString(tmp.resolve("password"), "stand-in\n");
        Map<String, Object> container = relayContainer(relay().body());
        Map<String, String> env = new LinkedHashMap<>();
        for (Object e : list(container.get("env"))) {
            if (at(e, "value") != null) {
                env.put((String) at(e, "name"), String.valueOf(at(e, "value")));
            }
        }
        List<String> args = new ArrayList<>();
        list(container.get("args")).forEach(a -> args.add(String.valueOf(a)));
        List<Object> pod = List.of(at(relay().body(), "spec", "template", "spec"));
        env.replaceAll((k, v) -> onSecret(pod, v) ? password.toString() : v);
        args.replaceAll(v -> onSecret(pod, v) ? password.toString() : v);

        assertThat(RelayFacts.parse(args, env).topic()).isEqualTo("effonce.public.payments");
    }

    private static boolean onSecret(List<Object> pod, String value) {
        return SecretUse.fileAt(pod, RELAY_CONTAINER, value) != null;
    }

    @Test
    void everySecretIsDefinedAndUsedAndNoPasswordIsWrittenDown() {
        assertThat(Checks.secrets(K8S)).isEmpty();
        assertThat(Checks.noPlainPasswords(K8S)).isEmpty();
    }

    @Test
    void aSecretNothingDefinesOrNothingUsesIsNamed() {
        Doc sink =
                K8S.ofKind("Secret").stream()
                        .filter(d -> "effonce-sink-db".equals(d.name()))
                        .findFirst()
                        .orElseThrow();
        assertThat(Checks.secrets(K8S.without(sink)))
                .contains(
                        "deploy/k8s/flink-deployment.yaml (FlinkDeployment effonce-ledger-totals)"
                                + " uses Secret effonce-sink-db, which none defines");
        Doc renamed = Manifests.edited(sink, body -> map(body.get("metadata")).put("name", "x"));
        assertThat(Checks.secrets(K8S.with(sink, renamed)))
                .contains(
                        "deploy/k8s/secrets.yaml: Secret x is defined, but nothing mounts or"
                                + " references it");
    }

    /** Each password file the job and the relay are told to read is a mounted Secret's key. */
    @Test
    void passwordFilesAreMountedSecrets() {
        Object spec = at(job().body(), "spec");
        List<Object> taskManager =
                Stream.of(
                                at(spec, "taskManager", "podTemplate", "spec"),
                                at(spec, "podTemplate", "spec"))
                        .filter(s -> s != null)
                        .toList();
        String sinkFile = jobArgs(job()).get("postgres.password-file");
        assertThat(sinkFile).as("%s: --postgres.password-file", job().where()).isNotNull();
        assertThat(
                        Checks.passwordFile(
                                K8S,
                                taskManager,
                                FLINK_CONTAINER,
                                sinkFile,
                                job().where() + ": --postgres.password-file"))
                .isEmpty();

        Map<String, Object> container = relayContainer(relay().body());
        List<String> relayFiles = new ArrayList<>();
        List<String> findings = new ArrayList<>();
        String argument =
                Checks.pairs(list(container.get("args")), relay().where(), findings)
                        .get("db-password-file");
        if (argument != null) {
            relayFiles.add(argument);
        }
        for (Object e : list(container.get("env"))) {
            if (RelayFacts.variablesOf("--db-password-file").contains(at(e, "name"))
                    && String.valueOf(at(e, "name")).endsWith("_FILE")) {
                relayFiles.add(String.valueOf(at(e, "value")));
            }
        }
        assertThat(relayFiles).as("%s: the relay's password file", relay().where()).hasSize(1);
        assertThat(
                        Checks.passwordFile(
                                K8S,
                                List.of(at(relay().body(), "spec", "template", "spec")),
                                RELAY_CONTAINER,
                                relayFiles.get(0),
                                relay().where() + ": the relay's password file"))
                .isEmpty();
    }

    static Map<String, Object> relayContainer(Map<String, Object> deployment) {
        return list(at(deployment, "spec", "template", "spec", "containers")).stream()
                .map(Manifests::map)
                .filter(c -> RELAY_CONTAINER.equals(c.get("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no container " + RELAY_CONTAINER));
    }
}
