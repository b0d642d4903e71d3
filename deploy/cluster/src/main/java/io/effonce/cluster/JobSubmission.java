package io.effonce.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A job jar and how to run it: entry class, program arguments, parallelism, and optionally the
 * savepoint or retained checkpoint to restore from.
 *
 * @param jar the job jar (uploaded through {@code /jars/upload})
 * @param entryClass the class with {@code main}
 * @param args program arguments
 * @param parallelism the job's parallelism, or 0 for the cluster's {@code parallelism.default}
 * @param savepointPath a savepoint or retained checkpoint to restore from, or {@code null}
 * @param allowNonRestoredState allow state in the savepoint that no operator claims
 */
public record JobSubmission(
        Path jar,
        String entryClass,
        List<String> args,
        int parallelism,
        String savepointPath,
        boolean allowNonRestoredState) {

    private static final String LEDGER_JOB = "io.effonce.job.LedgerTotalsJob";

    public JobSubmission {
        args = List.copyOf(args);
        if (parallelism < 0) {
            throw new IllegalArgumentException("parallelism must be >= 0, was " + parallelism);
        }
    }

    /** A fresh run of {@code entryClass} from {@code jar} with the cluster's parallelism. */
    public static JobSubmission of(Path jar, String entryClass, String... args) {
        return new JobSubmission(jar, entryClass, List.of(args), 0, null, false);
    }

    /**
     * A fresh run of the ledger job ({@code io.effonce.job.LedgerTotalsJob}) from {@code jar},
     * reading {@code topics} (separated by {@code ;}) from {@code kafka} and writing to {@code
     * jdbcUrl} as {@code user}, whose password is the first line of {@code passwordFile}; {@code
     * more} are further options of the job.
     */
    public static JobSubmission ledgerJob(
            Path jar,
            String kafka,
            String topics,
            String jdbcUrl,
            String user,
            Path passwordFile,
            String... more) {
        List<String> args = new ArrayList<>();
        Collections.addAll(
                args,
                "--kafka.bootstrap-servers",
                kafka,
                "--kafka.topic",
                topics,
                "--postgres.url",
                jdbcUrl,
                "--postgres.user",
                user,
                "--postgres.password-file",
                passwordFile.toString());
        Collections.addAll(args, more);
        return new JobSubmission(jar, LEDGER_JOB, args, 0, null, false);
    }

    public JobSubmission withParallelism(int newParallelism) {
        return new JobSubmission(
                jar, entryClass, args, newParallelism, savepointPath, allowNonRestoredState);
    }

    /** Restores from this savepoint or retained checkpoint path. */
    public JobSubmission fromSavepoint(String path) {
        return new JobSubmission(jar, entryClass, args, parallelism, path, allowNonRestoredState);
    }

    /** The same submission with other program arguments. */
    public JobSubmission withArgs(List<String> newArgs) {
        return new JobSubmission(
                jar, entryClass, newArgs, parallelism, savepointPath, allowNonRestoredState);
    }

    /** The same submission of another entry class of the jar. */
    public JobSubmission withEntryClass(String newEntryClass) {
        return new JobSubmission(
                jar, newEntryClass, args, parallelism, savepointPath, allowNonRestoredState);
    }

    public JobSubmission allowNonRestoredState(boolean allow) {
        return new JobSubmission(jar, entryClass, args, parallelism, savepointPath, allow);
    }

    /**
     * The {@code flink-local} command line that submits this (its words, each a shell word: run
     * through {@code sh}, it submits exactly this), against the cluster in {@code workDir}.
     */
    public String asCommand(String program, Path workDir) {
        List<String> words = new ArrayList<>();
        Collections.addAll(
                words, program, "--work-dir", workDir.toString(), "submit", jar.toString());
        Collections.addAll(words, "--class", entryClass);
        if (parallelism > 0) {
            Collections.addAll(words, "--parallelism", Integer.toString(parallelism));
        }
        if (savepointPath != null) {
            Collections.addAll(words, "-s", savepointPath);
        }
        if (allowNonRestoredState) {
            words.add("--allow-non-restored-state");
        }
        words.add("--wait");
        words.add("--");
        words.addAll(args);
        return String.join(" ", words.stream().map(JobSubmission::shellWord).toList());
    }

    /** {@code word} as one shell word: quoted unless it is made of characters no shell reads. */
    static String shellWord(String word) {
        if (!word.isEmpty() && word.matches("[A-Za-z0-9_./:=@%+,-]+")) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
