using System.Diagnostics;
using SlimPool;

// One pool, three kinds of work sharing its workers: a serial group (an actor-like queue), a group that allows at most
// four concurrent calls to a "database", and a low-priority background job that must not slow the request path.
// Eight workers, so that the database group's limit of four, not the pool's size, is what caps it.
using var pool = new SlimThreadPool(new SlimThreadPoolOptions { Name = "app", WorkerCount = 8 });
var clock = Stopwatch.StartNew();

// 1. A serial group: items run one at a time, in order, and each sees what the previous one wrote, without a lock.
using SlimThreadPoolGroup account = pool.CreateGroup(new SlimGroupOptions { Name = "account" });
long balance = 0;
var ledger = new List<string>();
foreach (long amount in new long[] { 100, -30, 250, -20, 5 })
{
    account.Queue(() =>
    {
        balance += amount;
        ledger.Add($"{amount:+#;-#} -> {balance}");
    });
}

// 2. A group with concurrency 4: 40 blocking "queries", never more than four at once.
using SlimThreadPoolGroup database = pool.CreateGroup(new SlimGroupOptions { Name = "database", MaxConcurrency = 4 });
int inFlight = 0;
int mostInFlight = 0;
for (int i = 0; i < 40; i++)
{
    database.Queue(() =>
    {
        int now = Interlocked.Increment(ref inFlight);
        InterlockedMax(ref mostInFlight, now);
        Thread.Sleep(5); // the query
        Interlocked.Decrement(ref inFlight);
    });
}

// 3. A low-priority background job queued in the middle of a burst of request work at the default (Normal) priority:
// it waits until no request item waits (or until it has waited SlimThreadPoolOptions.LowPriorityMaxDelay, 100 ms).
const int Requests = 2_000;
long requestsDone = 0;
long requestsDoneWhenJobRan = -1;
using var jobDone = new ManualResetEventSlim(false);
for (int i = 0; i < Requests; i++)
{
    if (i == Requests / 2)
    {
        pool.Queue(() =>
        {
            requestsDoneWhenJobRan = Interlocked.Read(ref requestsDone);
            jobDone.Set();
        }, WorkItemPriority.Low);
    }

    pool.Queue(() =>
    {
        Thread.SpinWait(1_000); // about 20 µs of request work
        Interlocked.Increment(ref requestsDone);
    });
}

await account.DisposeAsync();   // drains the group alone: the pool and the other group go on
await database.DisposeAsync();
jobDone.Wait();
await pool.WaitForIdleAsync();

Console.WriteLine($"serial group '{account.Name}': {string.Join(", ", ledger)}");
Console.WriteLine($"group '{database.Name}' (MaxConcurrency {database.MaxConcurrency}): {database.CompletedWorkItemCount} queries, at most {mostInFlight} at once");
Console.WriteLine($"low-priority job ran after {requestsDoneWhenJobRan} of {Interlocked.Read(ref requestsDone)} request items");
Console.WriteLine($"done in {clock.ElapsedMilliseconds} ms");

static void InterlockedMax(ref int target, int value)
{
    int seen = Volatile.Read(ref target);
    while (value > seen && Interlocked.CompareExchange(ref target, value, seen) is var previous && previous != seen)
    {
        seen = previous;
    }
}
