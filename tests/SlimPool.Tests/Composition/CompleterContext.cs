namespace SlimPool.Tests.Composition;

/// <summary>
/// A context whose <see cref="ProgramRun.Local"/> is "completer", in which a <see cref="ItemKind.Continuation"/> item's
/// antecedent completes. Its own type: the thread that captures it reads <see cref="ProgramRun"/>'s statics, which
/// must not wait for a static initializer of <see cref="ProgramRun"/> that waits for that thread.
/// </summary>
internal static class CompleterContext
{
    public static ExecutionContext Instance { get; } = Capture();

    private static ExecutionContext Capture()
    {
        ExecutionContext? captured = null;
        var thread = new Thread(() =>
        {
            ProgramRun.Local.Value = "completer";
            captured = ExecutionContext.Capture();
        });
        thread.Start();
        if (!thread.Join(TimeSpan.FromSeconds(60)))
        {
            throw new TimeoutException("The thread capturing the completer's context did not finish.");
        }

        return captured!;
    }
}
