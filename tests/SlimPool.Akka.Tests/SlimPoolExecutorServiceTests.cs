using Akka.Configuration;
using Akka.Dispatch;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Akka.Tests;

public sealed class SlimPoolExecutorServiceTests
{
    [Fact]
    public void Execute_WarmPool_AllocatesNothingPerRunnable()
    {
        const int Runnables = 200_000;
        var configurator = new SlimPoolExecutorServiceConfigurator(ConfigurationFactory.ParseString("id = alloc\nslim-pool.worker-count = 2"), prerequisites: null!);
        ExecutorService executor = configurator.Produce("alloc");
        long ran = 0;
        var runnable = new ActionRunnable(() => Interlocked.Increment(ref ran)); // one instance, queued again and again, as Akka does with a mailbox
        int bursts = 0;

        // Returns what the producer allocated while it queued (the wait that follows allocates, and is not counted).
        long Burst()
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < Runnables; i++)
            {
                executor.Execute(runnable);
            }

            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            bursts++;
            Bounded.Until(() => Interlocked.Read(ref ran) == (long)bursts * Runnables, "the burst to run");
            return allocated;
        }

        try
        {
            _ = Burst(); // warm-up: JIT, and the queue grown to what a burst needs
            _ = Burst();

            // As in the core pool's allocation test: a worker preempted mid-dequeue can make the producer grow the
            // injection queue once, so some burst out of three must allocate nothing at all.
            var allocations = new List<long>();
            for (int attempt = 0; attempt < 3 && (allocations.Count == 0 || allocations[^1] != 0); attempt++)
            {
                allocations.Add(Burst());
            }

            Assert.True(allocations[^1] == 0, $"every measured burst allocated on the producer: {string.Join(", ", allocations)} bytes");
        }
        finally
        {
            executor.Shutdown();
        }
    }
}
