using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using SlimPool.Queues;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Queues;

/// <summary>
/// The stack-address filter in front of the work-stealing queue's thread-local read (<see cref="AttachedStacks"/>): it
/// may send a caller that is not attached on to the thread-local, but must never call an attached thread unattached,
/// nor skip the lookup for an unattached thread whose stack lies among the attached ones'.
/// </summary>
public sealed class AttachedStacksTests
{
    [Fact]
    public void TryGetCurrent_TwoThreads_EachRangeHoldsItsOwnLocalsAndNotTheOthers()
    {
        if (!BoundsReadableHere())
        {
            return;
        }

        using var first = new StackThread();
        using var second = new StackThread();

        (nuint low, nuint high, bool holdsLocal) a = first.Run(ReadBoundsAndCheckALocal);
        (nuint low, nuint high, bool holdsLocal) b = second.Run(ReadBoundsAndCheckALocal);

        Assert.True(a.holdsLocal);
        Assert.True(b.holdsLocal);
        Assert.True(a.high - a.low >= StackThread.StackBytes, $"{a.high - a.low} bytes, asked for {StackThread.StackBytes}");
        Assert.True(a.high <= b.low || b.high <= a.low, "two live threads' stacks overlap");
    }

    [Theory]
    [InlineData("1234/task/1234", true)]
    [InlineData("1234/task/1240", false)]
    [InlineData("1/task/1", true)]
    public void IsMainThread_ThreadSelfLink_ComparesTheProcessAndThreadIds(string link, bool main)
    {
        Assert.Equal(main, ThreadStackBounds.IsMainThread(link));
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("1234/task")]
    [InlineData("1234/tasks/1234")]
    [InlineData("-1/task/-1")]
    [InlineData("a/task/a")]
    public void IsMainThread_LinkMissingOrUnexpected_IsUnknown(string? link)
    {
        Assert.Null(ThreadStackBounds.IsMainThread(link));
    }

    [Fact]
    public void MayHoldCurrentThread_NothingAttached_IsFalse()
    {
        var stacks = new AttachedStacks();

        Assert.False(stacks.MayHoldCurrentThread);
    }

    [Fact]
    public void MayHoldCurrentThread_OneThreadAttached_TrueOnItAndFalseOnOthers()
    {
        if (!BoundsReadableHere())
        {
            return;
        }

        var stacks = new StrongBox<AttachedStacks>(new AttachedStacks());
        using var attached = new StackThread();
        using var other = new StackThread();

        attached.Run(() =>
        {
            stacks.Value.Add(AttachedStacks.CurrentThreadStack());
            return 0;
        });

        Assert.True(attached.Run(() => stacks.Value.MayHoldCurrentThread));
        Assert.True(attached.Run(() => Deeper(stacks, depth: 200)), "a deeper frame of the attached thread");
        Assert.False(other.Run(() => stacks.Value.MayHoldCurrentThread));
        Assert.False(stacks.Value.MayHoldCurrentThread); // the test's own thread
    }

    [Fact]
    public void EnqueueFenced_UnattachedThreadWhoseStackLiesBetweenAttachedOnes_GoesToTheSharedQueue()
    {
        if (!BoundsReadableHere())
        {
            return;
        }

        var queue = new WorkStealingWorkQueue();
        IFencedEnqueue fenced = queue;
        using var t0 = new StackThread();
        using var t1 = new StackThread();
        using var t2 = new StackThread();

        // Attach the two threads whose stacks lie lowest and highest: the third lies between them, inside the range
        // the filter keeps, so only its thread-local can tell it is no worker.
        StackThread[] byAddress = [.. new[] { t0, t1, t2 }.OrderBy(thread => thread.Run(() => ReadBoundsAndCheckALocal().Low))];
        byAddress[0].Run(() => Attach(queue, 0));
        byAddress[2].Run(() => Attach(queue, 1));
        StackThread middle = byAddress[1];

        Assert.False(byAddress[0].Run(() => fenced.EnqueueFenced(WorkQueueContractTests.Entry(1))), "the lowest attached thread's own push");
        Assert.False(byAddress[2].Run(() => fenced.EnqueueFenced(WorkQueueContractTests.Entry(2))), "the highest attached thread's own push");
        Assert.True(middle.Run(() => fenced.EnqueueFenced(WorkQueueContractTests.Entry(3))), "the thread between them is no worker");
        Assert.False(middle.Run(() => queue.TryPushOwn(WorkQueueContractTests.Entry(4).StoredCallback, null, null)));
        Assert.True(fenced.EnqueueFenced(WorkQueueContractTests.Entry(5))); // the test's own thread, outside the range
        Assert.Equal(2, queue.Shared.Count);
        Assert.Equal(4, queue.Count);
    }

    // Where the bounds cannot be read the filter passes every caller on to the thread-local, and there is nothing to
    // test; on the systems it reads them on, it must.
    private static bool BoundsReadableHere()
    {
        bool readable = ThreadStackBounds.TryGetCurrent(out _, out _);
        Assert.True(readable || !(OperatingSystem.IsLinux() || OperatingSystem.IsWindows() || OperatingSystem.IsMacOS()));
        return readable;
    }

    private static int Attach(WorkStealingWorkQueue queue, int index)
    {
        queue.AttachWorker(index);
        return index;
    }

    private static (nuint Low, nuint High, bool HoldsLocal) ReadBoundsAndCheckALocal()
    {
        byte local = 1;
        nuint here = (nuint)Unsafe.ByteOffset(ref Unsafe.NullRef<byte>(), ref local); // the local's address
        Assert.True(ThreadStackBounds.TryGetCurrent(out nuint low, out nuint high));
        return (low, high, here >= low && here < high);
    }

    // A frame some kilobytes further down the same stack.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool Deeper(StrongBox<AttachedStacks> stacks, int depth)
    {
        Span<byte> pad = stackalloc byte[64];
        pad[0] = (byte)depth;
        return depth == 0 ? stacks.Value.MayHoldCurrentThread : Deeper(stacks, depth - 1) && pad[0] == depth;
    }

    // A thread that runs what it is given, one call at a time, so a test can act on it at chosen points.
    private sealed class StackThread : IDisposable
    {
        public const int StackBytes = 512 * 1024;

        private readonly BlockingCollection<Action> _calls = [];
        private readonly Thread _thread;

        public StackThread()
        {
            _thread = new Thread(() =>
            {
                foreach (Action call in _calls.GetConsumingEnumerable())
                {
                    call();
                }
            }, StackBytes) { IsBackground = true };
            _thread.Start();
        }

        public T Run<T>(Func<T> call)
        {
            var result = new TaskCompletionSource<T>(TaskCreationOptions.RunContinuationsAsynchronously);
            _calls.Add(() =>
            {
                try
                {
                    result.SetResult(call());
                }
                catch (Exception exception)
                {
                    result.SetException(exception);
                }
            });
            return Bounded.Result(result.Task, "a call on the test's thread");
        }

        public void Dispose()
        {
            _calls.CompleteAdding();
            Assert.True(_thread.Join(Bounded.Timeout), "the test's thread ended");
            _calls.Dispose();
        }
    }
}
