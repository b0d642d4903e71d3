package io.effonce.sink.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.FlushableSink;
import java.io.IOException;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.junit.jupiter.api.Test;

/**
 * The sink's public API is what it marks {@link PublicEvolving}, and it grows only on purpose:
 * every public type of the sink says whether it is public API or {@link Internal}; the public
 * types' members (those not marked internal) are listed in {@code public-api.txt}, so a new or
 * changed one fails here until the listing is updated in the same change; and no listed signature
 * names a type of the sink that is not public API.
 */
class PublicApiTest {

    private static final String LISTING = "public-api.txt";
    private static final Pattern SINK_TYPE = Pattern.compile("io\\.effonce\\.sink\\.[\\w.$]+");

    @Test
    void everyPublicTypeSaysWhetherItIsPublicApi() throws Exception {
        List<String> unmarked = new ArrayList<>();
        for (Class<?> type : publicTypes()) {
            boolean api = type.isAnnotationPresent(PublicEvolving.class);
            boolean internal = type.isAnnotationPresent(Internal.class);
            if (api == internal) {
                unmarked.add(type.getName());
            }
        }
        assertThat(unmarked)
                .as("public types marked neither @PublicEvolving nor @Internal (or both)")
                .isEmpty();
    }

    /**
     * Laid out as Flink's connectors are: the public API is the package {@code io.effonce.sink},
     * and everything of that package is public API; the rest lives under {@code .internal}.
     */
    @Test
    void thePublicApiIsOnePackageAndTheRestIsInternal() throws Exception {
        List<String> misplaced = new ArrayList<>();
        for (Class<?> type : publicTypes()) {
            String pkg = type.getPackageName();
            boolean api = type.isAnnotationPresent(PublicEvolving.class);
            if (api != pkg.equals("io.effonce.sink")
                    || (!api && !pkg.startsWith("io.effonce.sink.internal"))) {
                misplaced.add((api ? "public API " : "internal ") + type.getName());
            }
        }
        assertThat(misplaced)
                .as("public API outside io.effonce.sink, or internal types outside .internal")
                .isEmpty();
    }

    @Test
    void thePublicApiIsTheListing() throws Exception {
        List<String> listed =
                Files.readAllLines(
                                Path.of(
                                        Objects.requireNonNull(
                                                        PublicApiTest.class.getResource(LISTING))
                                                .toURI()),
                                StandardCharsets.UTF_8)
                        .stream()
                        .filter(line -> !line.isBlank() && !line.startsWith("#"))
                        .toList();
        List<String> current = listing();
        Path actual = Path.of("target", "public-api.actual.txt");
        Files.write(actual, current, StandardCharsets.UTF_8);
        assertThat(current)
                .as(
                        "the sink's public API changed; if that is meant, copy sink/%s (the API as"
                                + " it is) over sink/src/test/resources/io/effonce/sink/api/%s",
                        actual, LISTING)
                .containsExactlyElementsOf(listed);
    }

    @Test
    void noPublicSignatureNamesAnInternalType() throws Exception {
        Set<String> api = new TreeSet<>();
        for (Class<?> type : apiTypes()) {
            api.add(type.getName());
        }
        List<String> leaks = new ArrayList<>();
        for (String signature : listing()) {
            Matcher m = SINK_TYPE.matcher(signature);
            while (m.find()) {
                String named = m.group(); // a type, or a type's member
                if (api.stream().noneMatch(t -> named.equals(t) || named.startsWith(t + "."))) {
                    leaks.add(signature + " names " + named);
                }
            }
        }
        assertThat(leaks).as("public signatures naming types that are not public API").isEmpty();
    }

    /** Each public API type, then its members indented, one line each; both sorted. */
    private static List<String> listing() throws Exception {
        List<String> lines = new ArrayList<>();
        for (Class<?> type : apiTypes()) {
            lines.add(type.toGenericString());
            Set<String> signatures = new TreeSet<>();
            List<Member> members = new ArrayList<>();
            members.addAll(List.of(type.getDeclaredConstructors()));
            members.addAll(List.of(type.getDeclaredMethods()));
            members.addAll(List.of(type.getDeclaredFields()));
            for (Member member : members) {
                if (isApi(member)) {
                    signatures.add("  " + signature(member));
                }
            }
            lines.addAll(signatures);
        }
        return lines;
    }

    private static boolean isApi(Member member) {
        int modifiers = member.getModifiers();
        return (Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers))
                && !member.isSynthetic()
                && !(member instanceof Method method && method.isBridge())
                && !((AnnotatedElement) member).isAnnotationPresent(Internal.class);
    }

    private static String signature(Member member) {
        return member instanceof Field f
                ? f.toGenericString()
                : ((Executable) member).toGenericString();
    }

    private static List<Class<?>> apiTypes() throws Exception {
        return publicTypes().stream()
                .filter(type -> type.isAnnotationPresent(PublicEvolving.class))
                .sorted(Comparator.comparing(Class::getName))
                .toList();
    }

    /** The sink's public classes, nested public ones included, from its compiled classes. */
    private static List<Class<?>> publicTypes() throws IOException, URISyntaxException {
        Path classes =
                Path.of(
                        FlushableSink.class
                                .getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .toURI());
        List<Class<?>> types = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                String name =
                        classes.relativize(file)
                                .toString()
                                .replace(file.getFileSystem().getSeparator(), ".")
                                .replaceAll("\\.class$", "");
                Class<?> type;
                try {
                    type = Class.forName(name, false, PublicApiTest.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException(e);
                }
                if (isVisible(type)) {
                    types.add(type);
                }
            }
        }
        return types;
    }

    /** Public, and public all the way out: a public type nested in an internal one counts. */
    private static boolean isVisible(Class<?> type) {
        if (type.isAnonymousClass() || type.isLocalClass() || type.isSynthetic()) {
            return false;
        }
        for (Class<?> t = type; t != null; t = t.getEnclosingClass()) {
            if (!Modifier.isPublic(t.getModifiers())) {
                return false;
            }
        }
        return true;
    }
}
