using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace SlimPool.Workers;

/// <summary>
/// What a thread that runs many items in a row (a worker, a group's turn) resets after each one: its ExecutionContext
/// and its SynchronizationContext, read from the thread it was made on without a thread-local lookup per item.
/// </summary>
/// <remarks>
/// <para><see cref="ExecutionContext.Capture"/> and <see cref="SynchronizationContext.Current"/> each find the current
/// thread through a thread-local read, which on Linux goes through <c>__tls_get_addr</c>: two such reads after every
/// item cost about 5 ns, a tiny item's whole run. The built-in pool reads the same two fields of the thread object it
/// holds; this does too, through <see cref="UnsafeAccessorAttribute"/> accessors to <c>Thread._executionContext</c> and
/// <c>Thread._synchronizationContext</c>. Those are private fields of the runtime's <see cref="Thread"/>: where they
/// are missing (another runtime), <see cref="Readable"/> is false and every check goes through the public API
/// instead, as it would without this type.</para>
/// <para>The values compared are the thread's fields as they were when this was made: an item that set an AsyncLocal,
/// suppressed the flow, restored a flowed context or changed the SynchronizationContext left a different reference
/// there. A thread's own fields are written only by that thread, so reading them on it needs no fence.</para>
/// </remarks>
internal readonly struct ThreadContexts
{
    /// <summary>Whether the runtime's <see cref="Thread"/> has the fields read here (checked once).</summary>
    internal static readonly bool Readable = CanReadThreadFields();

    // The context of a thread that nothing flowed into: no AsyncLocal values, flow not suppressed (Thread.UnsafeStart
    // flows none), captured on a thread of its own, once. It is the runtime's default context, the one a thread whose
    // field is null runs in (Capture gives it for a null field).
    private static readonly Lazy<ExecutionContext> s_clean = new(static () =>
    {
        ExecutionContext? clean = null;
        var thread = new Thread(() => clean = System.Threading.ExecutionContext.Capture()) { IsBackground = true, Name = "SlimPool clean context" };
        thread.UnsafeStart();
        thread.Join();
        return clean!;
    });

    /// <summary>
    /// A clean ExecutionContext, no AsyncLocal values and the flow not suppressed: where an item that flowed none starts
    /// when it runs off its own pool's workers (<see cref="CurrentWorker.CleanContextOf"/>), and what a thread whose
    /// field is null is restored to (without looking itself up for it on every turn).
    /// </summary>
    public static ExecutionContext Clean => s_clean.Value;

    private readonly Thread _thread;
    private readonly ExecutionContext? _executionContextField;

    /// <summary>
    /// The current thread's contexts now: its ExecutionContext as it is (a suppressed flow included, when the thread's
    /// fields are readable) and <paramref name="synchronizationContext"/> are what each item must leave behind.
    /// </summary>
    public ThreadContexts(SynchronizationContext? synchronizationContext)
        : this(Thread.CurrentThread, synchronizationContext)
    {
    }

    /// <summary>As <see cref="ThreadContexts(SynchronizationContext?)"/>, given the current thread.</summary>
    public ThreadContexts(Thread currentThread, SynchronizationContext? synchronizationContext)
    {
        Debug.Assert(currentThread == Thread.CurrentThread, "made on the thread whose contexts it restores");
        _thread = currentThread;
        if (Readable)
        {
            // The field itself: a context whose flow is suppressed is restored as it is, which Capture, returning null
            // for it, cannot give (it gives the default context for a null field).
            _executionContextField = ExecutionContextField(_thread);
            ExecutionContext = _executionContextField ?? Clean;
        }
        else
        {
            ExecutionContext = System.Threading.ExecutionContext.Capture(); // null under a suppressed flow: not restored
        }

        SynchronizationContext = synchronizationContext;
    }

    /// <summary>The ExecutionContext restored after an item that changed it (null: none, see the constructor).</summary>
    public ExecutionContext? ExecutionContext { get; }

    /// <summary>The SynchronizationContext to restore after an item.</summary>
    public SynchronizationContext? SynchronizationContext { get; }

    /// <summary>Puts back what the item that just ran on this thread changed.</summary>
    public void RestoreAfterItem()
    {
        if (ExecutionContext is { } executionContext && ExecutionContextChanged(executionContext))
        {
            System.Threading.ExecutionContext.Restore(executionContext);
        }

        if (CurrentSynchronizationContext() != SynchronizationContext)
        {
            System.Threading.SynchronizationContext.SetSynchronizationContext(SynchronizationContext);
        }
    }

    private bool ExecutionContextChanged(ExecutionContext executionContext) =>
        Readable ? ExecutionContextField(_thread) != _executionContextField : System.Threading.ExecutionContext.Capture() != executionContext;

    private SynchronizationContext? CurrentSynchronizationContext() =>
        Readable ? SynchronizationContextField(_thread) : System.Threading.SynchronizationContext.Current;

    /// <summary>
    /// <paramref name="currentThread"/>'s SynchronizationContext, as <see cref="SynchronizationContext.Current"/> gives it
    /// (which finds the current thread with a thread-local read).
    /// </summary>
    public static SynchronizationContext? SynchronizationContextOf(Thread currentThread)
    {
        Debug.Assert(currentThread == Thread.CurrentThread, "a thread's own contexts only");
        return Readable ? SynchronizationContextField(currentThread) : System.Threading.SynchronizationContext.Current;
    }

    /// <summary>
    /// Sets <paramref name="currentThread"/>'s SynchronizationContext, as
    /// <see cref="SynchronizationContext.SetSynchronizationContext"/> does (a store to the same field).
    /// </summary>
    public static void SetSynchronizationContext(Thread currentThread, SynchronizationContext? synchronizationContext)
    {
        Debug.Assert(currentThread == Thread.CurrentThread, "a thread's own contexts only");
        if (Readable)
        {
            SynchronizationContextField(currentThread) = synchronizationContext;
        }
        else
        {
            System.Threading.SynchronizationContext.SetSynchronizationContext(synchronizationContext);
        }
    }

    private static bool CanReadThreadFields()
    {
        try
        {
            Thread thread = Thread.CurrentThread;
            _ = ExecutionContextField(thread);
            return SynchronizationContextField(thread) == System.Threading.SynchronizationContext.Current;
        }
        catch (MissingFieldException)
        {
            return false;
        }
    }

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_executionContext")]
    private static extern ref ExecutionContext? ExecutionContextField(Thread thread);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_synchronizationContext")]
    private static extern ref SynchronizationContext? SynchronizationContextField(Thread thread);
}
