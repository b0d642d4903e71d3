package io.effonce.k8s;

import static io.effonce.k8s.Manifests.at;
import static io.effonce.k8s.Manifests.list;

import io.effonce.k8s.Manifests.Doc;
import io.effonce.k8s.SecretUse.Ref;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks, each returning its findings as sentences that name the file and the word at fault, so
 * a test can assert there are none and a counterfactual can assert the one it planted.
 */
final class Checks {

    private Checks() {}

    /** {@code --key value} and {@code --key=value} pairs; anything else is a finding. */
    static Map<String, String> pairs(List<Object> args, String where, List<String> findings) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = String.valueOf(args.get(i));
            if (!arg.startsWith("--")) {
                findings.add(where + ": '" + arg + "' is not an option; options look like --key");
                continue;
            }
            int eq = arg.indexOf('=');
            if (eq > 0) {
                out.put(arg.substring(2, eq), arg.substring(eq + 1));
            } else if (i + 1 < args.size()) {
                out.put(arg.substring(2), String.valueOf(args.get(++i)));
            } else {
                findings.add(where + ": --" + arg.substring(2) + " has no value");
            }
        }
        return out;
    }

    /** The FlinkDeployment's {@code spec.job.args} name only options the job knows. */
    static List<String> jobOptions(Doc deployment, Set<String> known) {
        List<String> findings = new ArrayList<>();
        String where = deployment.where() + ": spec.job.args";
        for (String key :
                pairs(list(at(deployment.body(), "spec", "job", "args")), where, findings)
                        .keySet()) {
            if (!known.contains(key)) {
                findings.add(
                        where
                                + ": --"
                                + key
                                + " is not an option of LedgerTotalsJob (its --help lists them)");
            }
        }
        return findings;
    }

    /** The relay's container names only options and environment variables the relay reads. */
    static List<String> relayOptions(
            Doc deployment, String container, Set<String> options, Set<String> variables) {
        List<String> findings = new ArrayList<>();
        Object spec = at(deployment.body(), "spec", "template", "spec");
        for (Object c : list(at(spec, "containers"))) {
            if (!container.equals(at(c, "name"))) {
                continue;
            }
            String where = deployment.where() + ": container " + container;
            for (String key : pairs(list(at(c, "args")), where + " args", findings).keySet()) {
                if (!options.contains("--" + key)) {
                    findings.add(
                            where + " args: --" + key + " is not an option of the relay (--help)");
                }
            }
            for (Object env : list(at(c, "env"))) {
                String name = (String) at(env, "name");
                if (!variables.contains(name)) {
                    findings.add(
                            where
                                    + " env: "
                                    + name
                                    + " is not a variable the relay reads (RelayOptions names"
                                    + " each option's variable)");
                }
            }
            return findings;
        }
        findings.add(deployment.where() + ": no container named " + container);
        return findings;
    }

    /** Every Secret is used, every use names a defined Secret, and every key used exists. */
    static List<String> secrets(Manifests manifests) {
        List<String> findings = new ArrayList<>();
        Map<String, Set<String>> defined = SecretUse.defined(manifests);
        List<Ref> refs = SecretUse.references(manifests);
        for (Doc d : manifests.ofKind("Secret")) {
            if (refs.stream().noneMatch(r -> d.name().equals(r.secret()))) {
                findings.add(
                        d.where()
                                + ": Secret "
                                + d.name()
                                + " is defined, but nothing mounts or references it");
            }
        }
        for (Ref r : refs) {
            Set<String> keys = defined.get(r.secret());
            if (keys == null) {
                findings.add(r.where() + " uses Secret " + r.secret() + ", which none defines");
            } else if (r.key() != null && !keys.contains(r.key())) {
                findings.add(
                        r.where()
                                + " uses key "
                                + r.key()
                                + " of Secret "
                                + r.secret()
                                + ", which holds only "
                                + keys);
            }
        }
        return findings;
    }

    /**
     * No password is written into a manifest: an environment variable whose name says PASSWORD
     * takes its value from a Secret, or names a file ({@code _FILE}) that {@link #passwordFile}
     * checks.
     */
    static List<String> noPlainPasswords(Manifests manifests) {
        List<String> findings = new ArrayList<>();
        for (Doc d : manifests.all()) {
            collectEnv(d.body(), d, findings);
        }
        return findings;
    }

    private static void collectEnv(Object node, Doc d, List<String> findings) {
        if (node instanceof List<?> l) {
            l.forEach(v -> collectEnv(v, d, findings));
        } else if (node instanceof Map<?, ?> m) {
            for (Object env : list(m.get("env"))) {
                String name = String.valueOf(at(env, "name"));
                if (name.contains("PASSWORD")
                        && !name.endsWith("_FILE")
                        && at(env, "valueFrom", "secretKeyRef") == null) {
                    findings.add(d.where() + ": env " + name + " is not taken from a Secret");
                }
            }
            m.values().forEach(v -> collectEnv(v, d, findings));
        }
    }

    /** The password file {@code path} lies in a Secret volume of the container, with its key. */
    static List<String> passwordFile(
            Manifests manifests, List<Object> podSpecs, String container, String path, String by) {
        Ref file = SecretUse.fileAt(podSpecs, container, path);
        if (file == null) {
            return List.of(
                    by + " reads " + path + ", which no Secret volume of " + container + " holds");
        }
        Set<String> keys = SecretUse.defined(manifests).get(file.secret());
        if (keys == null || !keys.contains(file.key())) {
            return List.of(
                    by
                            + " reads "
                            + path
                            + " = key "
                            + file.key()
                            + " of Secret "
                            + file.secret()
                            + ", which is not defined");
        }
        return List.of();
    }
}
