using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Async;

/// <summary>
/// The context a task runs in on the pool's and a group's <see cref="TaskScheduler"/>: the one it captured when it was
/// made, or with none the worker's, never that of the thread that queued it (guarantee 18). A continuation is queued by
/// whoever completes its antecedent, another producer perhaps.
/// </summary>
public sealed class TaskSchedulerContextTests
{
    private static readonly AsyncLocal<string?> s_local = new();

    public static TheoryData<bool> Targets() => [false, true];

    /// <summary>The scheduler captured the completer's context for the task (with flow on) and the continuation ran in it.</summary>
    [Theory]
    [MemberData(nameof(Targets))]
    public async Task TaskScheduler_ContinuationMadeUnderSuppressedFlow_StartsFromTheWorkersContextNotTheCompleters(bool onGroup)
    {
        using SlimThreadPool pool = CreatePoolWithStartHook();
        using SlimThreadPoolGroup group = pool.CreateGroup();
        Task<string?> continuation = ContinuationMadeUnderSuppressedFlow(onGroup ? group.TaskScheduler : pool.TaskScheduler, out TaskCompletionSource antecedent);

        CompleteFromAnotherProducer(antecedent);

        Assert.Equal("hook", await continuation.WaitAsync(Bounded.Timeout));
    }

    /// <summary>The built-in pool's scheduler, the reference: the continuation sees nothing of the completer's.</summary>
    [Fact]
    public async Task DefaultTaskScheduler_ContinuationMadeUnderSuppressedFlow_DoesNotSeeTheCompletersAsyncLocal()
    {
        Task<string?> continuation = ContinuationMadeUnderSuppressedFlow(TaskScheduler.Default, out TaskCompletionSource antecedent);

        CompleteFromAnotherProducer(antecedent);

        Assert.Null(await continuation.WaitAsync(Bounded.Timeout));
    }

    /// <summary>A task made with a context of its own runs in it, whoever queues it.</summary>
    [Theory]
    [MemberData(nameof(Targets))]
    public async Task TaskScheduler_ContinuationMadeWithAContext_SeesItsMakersAsyncLocal(bool onGroup)
    {
        using SlimThreadPool pool = CreatePoolWithStartHook();
        using SlimThreadPoolGroup group = pool.CreateGroup();
        var antecedent = new TaskCompletionSource();
        Task<string?>? continuation = null;
        var maker = new Thread(() =>
        {
            s_local.Value = "maker";
            continuation = antecedent.Task.ContinueWith<string?>(_ => s_local.Value, CancellationToken.None, TaskContinuationOptions.None, onGroup ? group.TaskScheduler : pool.TaskScheduler);
        });
        maker.Start();
        Assert.True(maker.Join(Bounded.Timeout));

        CompleteFromAnotherProducer(antecedent);

        Assert.Equal("maker", await continuation!.WaitAsync(Bounded.Timeout));
    }

    // One worker, flowing contexts, whose start hook sets the AsyncLocal to "hook".
    private static SlimThreadPool CreatePoolWithStartHook([System.Runtime.CompilerServices.CallerMemberName] string name = "") =>
        TestPools.Create(workers: 1, options =>
        {
            options.FlowExecutionContext = true;
            options.OnThreadStart = _ => s_local.Value = "hook";
        }, name);

    private static Task<string?> ContinuationMadeUnderSuppressedFlow(TaskScheduler scheduler, out TaskCompletionSource antecedent)
    {
        antecedent = new TaskCompletionSource();
        using (ExecutionContext.SuppressFlow())
        {
            return antecedent.Task.ContinueWith(_ => s_local.Value, CancellationToken.None, TaskContinuationOptions.None, scheduler);
        }
    }

    private static void CompleteFromAnotherProducer(TaskCompletionSource antecedent)
    {
        var completer = new Thread(() =>
        {
            s_local.Value = "other producer";
            antecedent.SetResult();
        });
        completer.Start();
        Assert.True(completer.Join(Bounded.Timeout));
    }
}
