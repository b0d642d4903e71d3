package io.effonce.testing.junit;

import io.effonce.testing.EmbeddedKafka;
import io.effonce.testing.LocalServices;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one Kafka broker for the whole test run (embedded, or the external cluster the environment
 * names) and resolves parameters of type {@link KafkaBootstrap}; parameters of type {@link
 * EmbeddedKafka} receive the broker itself, for restart tests (embedded only).
 */
public final class KafkaExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NS =
            ExtensionContext.Namespace.create(KafkaExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == KafkaBootstrap.class || type == EmbeddedKafka.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Broker broker =
                context.getRoot()
                        .getStore(NS)
                        .getOrComputeIfAbsent("broker", k -> new Broker(), Broker.class);
        if (parameter.getParameter().getType() == EmbeddedKafka.class) {
            if (broker.embedded == null) {
                throw new IllegalStateException(
                        "This test restarts the Kafka broker and needs the embedded one; unset "
                                + LocalServices.KAFKA_BOOTSTRAP
                                + " to run it");
            }
            return broker.embedded;
        }
        return broker.bootstrap;
    }

    /** Bootstrap servers of the Kafka the tests use. */
    public record KafkaBootstrap(String servers) {}

    private static final class Broker
            implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        final EmbeddedKafka embedded;
        final KafkaBootstrap bootstrap;

        Broker() {
            var external = LocalServices.externalKafka(System.getenv());
            this.embedded = external.isPresent() ? null : EmbeddedKafka.start();
            this.bootstrap =
                    new KafkaBootstrap(external.orElseGet(() -> embedded.bootstrapServers()));
        }

        @Override
        public void close() {
            if (embedded != null) {
                embedded.close();
            }
        }
    }
}
