package dev.onceflow.conformance;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.annotation.Testable;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * The cases a suite declares, whether or not this run ran them: the report lists every one, so a
 * case left out by {@code -Dtest}, disabled, aborted or broken before it judged anything shows as
 * such instead of vanishing. A case is a test method ({@code @Test} and anything else JUnit can run,
 * such as a parameterized test), or one dynamic test of a {@code @TestFactory}, named
 * {@code <factory>/<display name>}. Both this class and {@link CaseRecorder} name cases, from the
 * same two methods, so that a case that ran and a declared one match.
 */
final class SuiteCases {

    private SuiteCases() {
    }

    /**
     * The cases of {@code suite}'s class and its superclasses. A {@code @TestFactory} is called to
     * list its dynamic tests (none of them runs): a suite's factories must be cheap and free of side
     * effects, as the suite's own are. A factory that cannot be listed counts as one case by its
     * method's name.
     */
    static List<String> declared(Object suite) {
        List<String> cases = new ArrayList<>();
        for (Method method : ReflectionSupport.findMethods(suite.getClass(),
                m -> AnnotationSupport.isAnnotated(m, Testable.class), HierarchyTraversalMode.TOP_DOWN)) {
            if (!AnnotationSupport.isAnnotated(method, TestFactory.class)) {
                cases.add(method.getName());
                continue;
            }
            List<String> dynamic = new ArrayList<>();
            try {
                addDynamic(method.getName(), nodes(ReflectionSupport.invokeMethod(method, suite)), dynamic);
            } catch (Exception e) {
                // Listed by the factory's name: the report says it did not run, or how it failed when it ran.
                dynamic.clear();
            }
            cases.addAll(dynamic.isEmpty() ? List.of(method.getName()) : dynamic);
        }
        return cases;
    }

    /** The case a test method, a factory, or one of its dynamic tests is, as {@link #declared} names it. */
    static String of(ExtensionContext context) {
        List<String> path = new ArrayList<>();
        ExtensionContext at = context;
        while (at.getTestMethod().isEmpty() && at.getParent().isPresent()) {
            path.add(0, at.getDisplayName());
            at = at.getParent().get();
        }
        path.add(0, at.getTestMethod().map(Method::getName).orElse(context.getDisplayName()));
        return dynamicName(path);
    }

    /** Whether {@code name} counts for the report's guarantee: a connector may add {@code optional_...} cases that do not. */
    static boolean required(String name) {
        return !name.startsWith("optional_");
    }

    private static String dynamicName(List<String> path) {
        return String.join("/", path);
    }

    private static void addDynamic(String prefix, Iterator<?> nodes, List<String> into) {
        while (nodes.hasNext()) {
            DynamicNode node = (DynamicNode) nodes.next();
            String name = dynamicName(List.of(prefix, node.getDisplayName()));
            if (node instanceof DynamicContainer container) {
                addDynamic(name, container.getChildren().iterator(), into);
            } else {
                into.add(name);
            }
        }
    }

    /** What a factory may return, as JUnit accepts it. */
    private static Iterator<?> nodes(Object returned) {
        if (returned instanceof Stream<?> stream) {
            return stream.iterator();
        }
        if (returned instanceof Iterable<?> iterable) {
            return iterable.iterator();
        }
        if (returned instanceof Iterator<?> iterator) {
            return iterator;
        }
        if (returned instanceof Object[] array) {
            return Arrays.asList(array).iterator();
        }
        return List.of(returned).iterator();
    }
}
