package dev.onceflow.conformance;

import java.lang.reflect.Method;
import java.util.Optional;
import org.junit.jupiter.api.extension.DynamicTestInvocationContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Tells the suite's report which case runs and how it ended, for every case JUnit runs: a check
 * the case records belongs to it, and a case that throws before it judged anything (a fixture's
 * exception, a job that did not halt where it should) is reported as errored instead of vanishing.
 * Registered by {@link ConformanceSuiteBase}; cases JUnit never runs are found by {@link SuiteCases}.
 */
final class CaseRecorder implements InvocationInterceptor, TestWatcher {

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        record(invocation, context);
    }

    @Override
    public void interceptTestTemplateMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        record(invocation, context);
    }

    /** A factory that throws has none of its cases run: reported under its name, as {@link SuiteCases} lists it then. */
    @Override
    public <T> T interceptTestFactoryMethod(Invocation<T> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        try {
            return invocation.proceed();
        } catch (Throwable failure) {
            report(context).caseStarted(SuiteCases.of(context));
            report(context).caseEnded(SuiteCases.of(context), failure);
            throw failure;
        }
    }

    @Override
    public void interceptDynamicTest(Invocation<Void> invocation, DynamicTestInvocationContext call,
            ExtensionContext context) throws Throwable {
        record(invocation, context);
    }

    /** Before or after the case's body (an {@code @BeforeEach}, an {@code @AfterEach}): the case did not end well either. */
    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        report(context).caseFailedAround(SuiteCases.of(context), cause);
    }

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        report(context).caseFailedAround(SuiteCases.of(context), cause);
    }

    @Override
    public void testDisabled(ExtensionContext context, Optional<String> reason) {
        // A suite disabled as a whole has no instance, and no report either.
        if (context.getTestInstance().isPresent()) {
            report(context).caseDisabled(SuiteCases.of(context), reason.orElse("disabled"));
        }
    }

    private static void record(Invocation<Void> invocation, ExtensionContext context) throws Throwable {
        String name = SuiteCases.of(context);
        ConformanceReport report = report(context);
        report.caseStarted(name);
        try {
            invocation.proceed();
        } catch (Throwable failure) {
            report.caseEnded(name, failure);
            throw failure;
        }
        report.caseEnded(name, null);
    }

    /** The report of the suite instance that runs the case (a dynamic test's context has no instance: its factory's has). */
    private static ConformanceReport report(ExtensionContext context) {
        ExtensionContext at = context;
        while (at.getTestInstance().isEmpty() && at.getParent().isPresent()) {
            at = at.getParent().get();
        }
        return ((ConformanceSuiteBase) at.getRequiredTestInstance()).report();
    }
}
