using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Contracts;

/// <summary>The cancellable overloads, for every pool.</summary>
public abstract partial class ThreadPoolContractTests
{
    [Fact]
    public void QueueWithToken_TokenCancelledBeforeQueueing_SkipsEveryOverloadAndCountsIt()
    {
        var ledger = new Ledger(6);
        IThreadPool pool = CreatePool();
        var cancelled = new CancellationToken(canceled: true);

        pool.Queue(() => ledger.Mark(0), cancelled);
        pool.Queue(static s => ((LedgerEntry)s!).Mark(), new LedgerEntry(ledger, 1), cancelled);
        pool.Queue(new MarkItem(ledger, 2), cancelled);
        Assert.True(pool.TryQueue(() => ledger.Mark(3), cancelled));
        Assert.True(pool.TryQueue(static s => ((LedgerEntry)s!).Mark(), new LedgerEntry(ledger, 4), cancelled));
        Assert.True(pool.TryQueue(new MarkItem(ledger, 5), cancelled));
        pool.Dispose(); // drains: every accepted item has run or been skipped

        Assert.Equal(0, ledger.Total);
        Assert.Equal(6, CancelledCount(pool));
    }

    [Fact]
    public void QueueWithToken_LiveToken_RunsEveryOverload()
    {
        var ledger = new Ledger(6);
        using IThreadPool pool = CreatePool();
        using var cancellation = new CancellationTokenSource();

        pool.Queue(() => ledger.Mark(0), cancellation.Token);
        pool.Queue(static s => ((LedgerEntry)s!).Mark(), new LedgerEntry(ledger, 1), cancellation.Token);
        pool.Queue(new MarkItem(ledger, 2), cancellation.Token);
        Assert.True(pool.TryQueue(() => ledger.Mark(3), cancellation.Token));
        Assert.True(pool.TryQueue(static s => ((LedgerEntry)s!).Mark(), new LedgerEntry(ledger, 4), cancellation.Token));
        Assert.True(pool.TryQueue(new MarkItem(ledger, 5), cancellation.Token));

        ledger.WaitAll("the items queued with a live token");
        ledger.AssertEachExactlyOnce();
        Assert.Equal(0, CancelledCount(pool));
    }

    [Fact]
    public void QueueWithToken_NullCallback_ThrowsNamingTheArgument()
    {
        using IThreadPool pool = CreatePool();
        CancellationToken token = new CancellationTokenSource().Token;

        Assert.Equal("callback", Assert.Throws<ArgumentNullException>(() => pool.Queue((Action)null!, token)).ParamName);
        Assert.Equal("callback", Assert.Throws<ArgumentNullException>(() => pool.Queue((Action<object?>)null!, null, token)).ParamName);
        Assert.Equal("workItem", Assert.Throws<ArgumentNullException>(() => pool.Queue((IWorkItem)null!, token)).ParamName);
        Assert.Equal("callback", Assert.Throws<ArgumentNullException>(() => pool.TryQueue((Action)null!, token)).ParamName);
        Assert.Equal("callback", Assert.Throws<ArgumentNullException>(() => pool.TryQueue((Action<object?>)null!, null, token)).ParamName);
        Assert.Equal("workItem", Assert.Throws<ArgumentNullException>(() => pool.TryQueue((IWorkItem)null!, token)).ParamName);
    }

    [Fact]
    public void TryQueueWithToken_Disposed_ReturnsFalseAndQueueThrows()
    {
        IThreadPool pool = CreatePool();
        pool.Dispose();
        using var cancellation = new CancellationTokenSource();

        Assert.False(pool.TryQueue(() => { }, cancellation.Token));
        Assert.Throws<ObjectDisposedException>(() => pool.Queue(() => { }, cancellation.Token));
    }

    private static long CancelledCount(IThreadPool pool) => pool switch
    {
        SlimThreadPool slim => slim.CancelledWorkItemCount,
        ManagedThreadPool managed => managed.CancelledWorkItemCount,
        SlimThreadPoolGroup group => group.CancelledWorkItemCount,
        _ => throw new ArgumentException($"No cancelled count for {pool.GetType().Name}.", nameof(pool)),
    };

    private sealed class MarkItem(Ledger ledger, int id) : IWorkItem
    {
        public void Execute() => ledger.Mark(id);
    }
}
