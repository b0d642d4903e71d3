package io.effonce.k8s;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/** The YAML documents of {@code deploy/k8s}, each with the file it came from. */
final class Manifests {

    /** The module's folder, deploy/k8s (Surefire runs the tests there). */
    static final Path HOME =
            Path.of(System.getProperty("basedir", "")).toAbsolutePath().normalize();

    /** The repository's root. */
    static final Path ROOT = HOME.resolve("../..").normalize();

    /** One YAML document. */
    record Doc(Path file, Map<String, Object> body) {

        String kind() {
            return (String) body.get("kind");
        }

        String name() {
            return (String) at(body, "metadata", "name");
        }

        /** The file, as the repository names it: deploy/k8s/relay.yaml. */
        String where() {
            return ROOT.relativize(file).toString();
        }
    }

    private final List<Doc> docs;

    private Manifests(List<Doc> docs) {
        this.docs = List.copyOf(docs);
    }

    /** Every document of every {@code *.yaml} file in {@code dir} (not below it). */
    static Manifests load(Path dir) {
        List<Doc> docs = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                for (Object body : yaml(file)) {
                    if (body != null) {
                        docs.add(new Doc(file, map(body)));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Manifests(docs);
    }

    List<Doc> all() {
        return docs;
    }

    List<Doc> ofKind(String kind) {
        return docs.stream().filter(d -> kind.equals(d.kind())).toList();
    }

    Doc only(String kind) {
        List<Doc> found = ofKind(kind);
        if (found.size() != 1) {
            throw new AssertionError(
                    "expected one " + kind + " in " + HOME + ", found " + found.size());
        }
        return found.get(0);
    }

    /** The same documents with {@code doc} replaced by {@code changed}: for counterfactuals. */
    Manifests with(Doc doc, Doc changed) {
        return new Manifests(docs.stream().map(d -> d == doc ? changed : d).toList());
    }

    Manifests without(Doc doc) {
        return new Manifests(docs.stream().filter(d -> d != doc).toList());
    }

    static List<Object> yaml(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            Load load = new Load(LoadSettings.builder().setLabel(file.toString()).build());
            List<Object> bodies = new ArrayList<>();
            load.loadAllFromString(text).forEach(bodies::add);
            return bodies;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The value at {@code path} below {@code node}, or null where a step is missing. */
    static Object at(Object node, String... path) {
        Object here = node;
        for (String step : path) {
            if (!(here instanceof Map<?, ?> m)) {
                return null;
            }
            here = m.get(step);
        }
        return here;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object node) {
        return node == null ? Map.of() : (Map<String, Object>) node;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object node) {
        return node == null ? List.of() : (List<Object>) node;
    }

    /** A map of strings, each value as YAML wrote it (true, 0.4, 10s). */
    static Map<String, String> strings(Object node) {
        Map<String, String> out = new LinkedHashMap<>();
        map(node).forEach((k, v) -> out.put(k, String.valueOf(v)));
        return out;
    }

    /** A copy of {@code doc} with {@code change} applied to a deep copy of its body. */
    static Doc edited(Doc doc, java.util.function.Consumer<Map<String, Object>> change) {
        Map<String, Object> copy = map(deepCopy(doc.body()));
        change.accept(copy);
        return new Doc(doc.file(), copy);
    }

    private static Object deepCopy(Object node) {
        if (node instanceof Map<?, ?> m) {
            Map<String, Object> copy = new LinkedHashMap<>();
            m.forEach((k, v) -> copy.put((String) k, deepCopy(v)));
            return copy;
        }
        if (node instanceof List<?> l) {
            List<Object> copy = new ArrayList<>();
            l.forEach(v -> copy.add(deepCopy(v)));
            return copy;
        }
        return node;
    }
}
