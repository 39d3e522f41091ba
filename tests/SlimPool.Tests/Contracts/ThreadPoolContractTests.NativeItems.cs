using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Contracts;

/// <summary>The built-in pool's item shapes: <see cref="IThreadPoolWorkItem"/> and <c>Action&lt;TState&gt;</c> with <c>preferLocal</c>.</summary>
public abstract partial class ThreadPoolContractTests
{
    [Fact]
    public void QueueNativeItems_FromOutsideAndFromWorkers_EachRunsExactlyOnceWithItsState()
    {
        const int PerShape = 200;
        var ledger = new Ledger(PerShape * 8);
        using IThreadPool pool = CreatePool();

        // Each id runs exactly once; the four shapes × two preferLocal values, queued from outside and from a worker.
        void QueueAll(int offset)
        {
            for (int i = 0; i < PerShape; i++)
            {
                int id = offset + (i * 4);
                bool preferLocal = i % 2 == 0;
                pool.Queue(new LedgerThreadPoolItem(ledger, id), preferLocal);
                Assert.True(pool.TryQueue(new LedgerThreadPoolItem(ledger, id + 1), preferLocal));
                pool.Queue(static entry => entry.Mark(), new LedgerEntry(ledger, id + 2), preferLocal);
                Assert.True(pool.TryQueue(static s => s.Ledger.Mark(s.Id), (Ledger: ledger, Id: id + 3), preferLocal));
            }
        }

        QueueAll(0);
        pool.Queue(() => QueueAll(PerShape * 4));

        ledger.WaitAll("every native item");
        ledger.AssertEachExactlyOnce();
    }

    [Fact]
    public void QueueNativeItems_AfterDispose_QueueThrowsAndTryQueueReturnsFalse()
    {
        IThreadPool pool = CreatePool();
        pool.Dispose();
        int ran = 0;
        var item = new DelegateThreadPoolItem(() => Interlocked.Increment(ref ran));

        Assert.Throws<ObjectDisposedException>(() => pool.Queue(item, preferLocal: false));
        Assert.Throws<ObjectDisposedException>(() => pool.Queue(static r => r(), (Action)(() => ran++), preferLocal: true));
        Assert.False(pool.TryQueue(item, preferLocal: true));
        Assert.False(pool.TryQueue(static r => r.Execute(), item, preferLocal: false));
        Thread.Sleep(20);
        Assert.Equal(0, Volatile.Read(ref ran));
    }

    [Fact]
    public void QueueNativeItems_NullArguments_ThrowNamingTheArgument()
    {
        using IThreadPool pool = CreatePool();

        Assert.Equal("workItem", Assert.Throws<ArgumentNullException>(() => pool.Queue((IThreadPoolWorkItem)null!, preferLocal: false)).ParamName);
        Assert.Equal("workItem", Assert.Throws<ArgumentNullException>(() => pool.TryQueue((IThreadPoolWorkItem)null!, preferLocal: true)).ParamName);
        Assert.Equal("callback", Assert.Throws<ArgumentNullException>(() => pool.Queue<int>(null!, 1, preferLocal: false)).ParamName);
        Assert.Equal("callback", Assert.Throws<ArgumentNullException>(() => pool.TryQueue<string>(null!, "x", preferLocal: true)).ParamName);
    }

    private sealed class LedgerThreadPoolItem(Ledger ledger, int id) : IThreadPoolWorkItem
    {
        public void Execute() => ledger.Mark(id);
    }

    private sealed class DelegateThreadPoolItem(Action action) : IThreadPoolWorkItem
    {
        public void Execute() => action();
    }
}
