package io.effonce.k8s;

import static io.effonce.k8s.Manifests.at;
import static io.effonce.k8s.Manifests.list;
import static io.effonce.k8s.Manifests.map;

import io.effonce.k8s.Manifests.Doc;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Which Secrets the manifests define, which they use, and which file a mounted path is. */
final class SecretUse {

    /** A use of a Secret, or of one of its keys ({@code key} null: the whole Secret). */
    record Ref(String secret, String key, String where) {}

    private SecretUse() {}

    /** Each defined Secret's name with its keys (data and stringData). */
    static Map<String, Set<String>> defined(Manifests manifests) {
        Map<String, Set<String>> out = new TreeMap<>();
        for (Doc d : manifests.ofKind("Secret")) {
            Set<String> keys = new TreeSet<>(map(d.body().get("data")).keySet());
            keys.addAll(map(d.body().get("stringData")).keySet());
            out.put(d.name(), keys);
        }
        return out;
    }

    /** Every use of a Secret anywhere in a document that is not itself a Secret. */
    static List<Ref> references(Manifests manifests) {
        List<Ref> out = new ArrayList<>();
        for (Doc d : manifests.all()) {
            if (!"Secret".equals(d.kind())) {
                walk(d.body(), d.where() + " (" + d.kind() + " " + d.name() + ")", out);
            }
        }
        return out;
    }

    private static void walk(Object node, String where, List<Ref> out) {
        if (node instanceof List<?> l) {
            l.forEach(v -> walk(v, where, out));
            return;
        }
        if (!(node instanceof Map<?, ?>)) {
            return;
        }
        Map<String, Object> m = map(node);
        if (m.get("secretName") instanceof String name) { // a secret volume
            addWithItems(name, m.get("items"), where, out);
        }
        if (at(m, "secret", "name") instanceof String name) { // a projected volume's source
            addWithItems(name, at(m, "secret", "items"), where, out);
        }
        if (m.get("secretKeyRef") != null) {
            out.add(
                    new Ref(
                            (String) at(m, "secretKeyRef", "name"),
                            (String) at(m, "secretKeyRef", "key"),
                            where));
        }
        if (at(m, "secretRef", "name") instanceof String name) { // envFrom
            out.add(new Ref(name, null, where));
        }
        for (Object pull : list(m.get("imagePullSecrets"))) {
            out.add(new Ref((String) at(pull, "name"), null, where));
        }
        m.values().forEach(v -> walk(v, where, out));
    }

    private static void addWithItems(String name, Object items, String where, List<Ref> out) {
        if (list(items).isEmpty()) {
            out.add(new Ref(name, null, where));
        }
        for (Object item : list(items)) {
            out.add(new Ref(name, (String) at(item, "key"), where));
        }
    }

    /**
     * The Secret and key whose file {@code path} is inside {@code container} of a pod made from
     * {@code podSpecs} (the operator merges a FlinkDeployment's templates), or null if no Secret
     * volume is mounted there.
     */
    static Ref fileAt(List<Object> podSpecs, String container, String path) {
        for (Object spec : podSpecs) {
            for (Object c : list(at(spec, "containers"))) {
                if (!container.equals(at(c, "name"))) {
                    continue;
                }
                for (Object mount : list(at(c, "volumeMounts"))) {
                    String dir = (String) at(mount, "mountPath");
                    if (dir != null && path.startsWith(dir + "/")) {
                        Ref file = secretFile(podSpecs, (String) at(mount, "name"), dir, path);
                        if (file != null) {
                            return file;
                        }
                    }
                }
            }
        }
        return null;
    }

    private static Ref secretFile(List<Object> podSpecs, String volume, String dir, String path) {
        String file = path.substring(dir.length() + 1);
        for (Object spec : podSpecs) {
            for (Object v : list(at(spec, "volumes"))) {
                if (!volume.equals(at(v, "name")) || at(v, "secret", "secretName") == null) {
                    continue;
                }
                String secret = (String) at(v, "secret", "secretName");
                List<Object> items = list(at(v, "secret", "items"));
                if (items.isEmpty()) {
                    return new Ref(secret, file, path);
                }
                for (Object item : items) {
                    if (file.equals(at(item, "path"))) {
                        return new Ref(secret, (String) at(item, "key"), path);
                    }
                }
            }
        }
        return null;
    }
}
