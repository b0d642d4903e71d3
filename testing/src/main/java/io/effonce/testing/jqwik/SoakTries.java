package io.effonce.testing.jqwik;

import io.effonce.testing.SoakRun;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * The number of tries a property runs with {@code -Deffonce.soak=true}; without it, the property's
 * own {@code @Property(tries = …)} (CI's budget). The soak run explores more histories of the same
 * property; it does not change what is asserted.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@AddLifecycleHook(SoakTries.Hook.class)
public @interface SoakTries {

    int value();

    /** Sets the soak's tries before the property runs, when the soak run was asked for. */
    final class Hook implements AroundPropertyHook {

        @Override
        public PropertyExecutionResult aroundProperty(
                PropertyLifecycleContext context, PropertyExecutor property) {
            if (SoakRun.asked()) {
                context.findAnnotation(SoakTries.class)
                        .ifPresent(soak -> context.attributes().setTries(soak.value()));
            }
            return property.execute();
        }
    }
}
