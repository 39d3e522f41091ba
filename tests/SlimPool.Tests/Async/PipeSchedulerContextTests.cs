using System.IO.Pipelines;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Async;

/// <summary>The pool's and a group's <see cref="PipeScheduler"/>: a reader's continuation runs in its own context, as on <see cref="PipeScheduler.ThreadPool"/>.</summary>
public sealed class PipeSchedulerContextTests
{
    private static readonly AsyncLocal<string?> s_local = new();

    public static TheoryData<int> Schedulers() => [0, 1, 2]; // 0: built-in PipeScheduler.ThreadPool (reference), 1: pool, 2: group

    private static async Task<string?> ReadOnce(PipeReader reader)
    {
        ReadResult result = await reader.ReadAsync();
        reader.AdvanceTo(result.Buffer.End);
        return s_local.Value;
    }

    /// <summary>
    /// A pipe reader whose read was started under a suppressed flow resumes through the reader scheduler, called by the
    /// writer's flush on the writer's thread. The built-in PipeScheduler.ThreadPool queues it with UnsafeSchedule: no
    /// writer context. The pool's and group's PipeScheduler captured the writer's context before, so the
    /// reader's continuation ran with the other producer's AsyncLocal (found by an adversarial review).
    /// </summary>
    [Theory]
    [MemberData(nameof(Schedulers))]
    public async Task PipeReader_ReadStartedUnderSuppressedFlow_ContinuationDoesNotSeeTheWritersAsyncLocal(int which)
    {
        using SlimThreadPool pool = TestPools.Create(workers: 1, o => o.FlowExecutionContext = true);
        using SlimThreadPoolGroup group = pool.CreateGroup();
        PipeScheduler scheduler = which switch { 0 => PipeScheduler.ThreadPool, 1 => pool.PipeScheduler, _ => group.PipeScheduler };
        var pipe = new Pipe(new PipeOptions(readerScheduler: scheduler, writerScheduler: PipeScheduler.Inline, useSynchronizationContext: false));
        Task<string?> read;
        using (ExecutionContext.SuppressFlow())
        {
            read = ReadOnce(pipe.Reader);
        }

        Assert.False(read.IsCompleted);
        var writer = new Thread(() =>
        {
            s_local.Value = "writer";
            pipe.Writer.WriteAsync(new byte[] { 1 }).AsTask().GetAwaiter().GetResult();
        });
        writer.Start();
        Assert.True(writer.Join(Bounded.Timeout));

        Assert.NotEqual("writer", await read.WaitAsync(Bounded.Timeout));
    }
}
