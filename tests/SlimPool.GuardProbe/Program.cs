using System.Diagnostics;
using System.Globalization;
using SlimPool;
using SlimPool.GuardProbe;

// The starvation guard's probe: a pool floods items under whatever CPU the process was given, and prints what the
// guard did as "key=value" lines. Usage: dotnet SlimPool.GuardProbe.dll cpu-flood|sleep-flood <workers> <seconds>
// [item-ms] [starvation-timeout-ms]. cpu-flood keeps CPU-bound items waiting; sleep-flood queues 64 items that block
// (without a hint) until the end. Prints the processor count, the peak of live workers, the items completed and each
// StarvationGuardFired event as "completed/blocked/sampled". Exit code 0 = ran, 2 = bad arguments, 3 = the items did
// not drain in time.
if (args.Length < 3 || args[0] is not ("cpu-flood" or "sleep-flood")
    || !int.TryParse(args[1], CultureInfo.InvariantCulture, out int workers) || workers < 1
    || !double.TryParse(args[2], CultureInfo.InvariantCulture, out double seconds) || seconds <= 0)
{
    Console.Error.WriteLine("usage: cpu-flood|sleep-flood <workers> <seconds> [item-ms] [starvation-timeout-ms]");
    return 2;
}

bool sleepFlood = args[0] == "sleep-flood";
Console.WriteLine($"mode={args[0]}"); // the console starts its own thread: before the pool may take a thread limit's last

double itemMs = args.Length > 3 ? double.Parse(args[3], CultureInfo.InvariantCulture) : 1;
int timeoutMs = args.Length > 4 ? int.Parse(args[4], CultureInfo.InvariantCulture) : 50;
var itemTime = TimeSpan.FromMilliseconds(itemMs);
int backlog = 4 * workers; // enough that items always wait, few enough that the drain is quick
int outstanding = 0;
long completed = 0;
using var listener = new GuardListener();
using var pool = new SlimThreadPool(new SlimThreadPoolOptions
{
    Name = "probe",
    WorkerCount = workers,
    MaxWorkers = 256,
    StarvationTimeout = TimeSpan.FromMilliseconds(timeoutMs),
});

int peak = pool.LiveWorkerCount;
var clock = Stopwatch.StartNew();
using var release = new ManualResetEventSlim();
if (sleepFlood)
{
    backlog = 0; // the loop below only watches
    outstanding = 64;
    for (int i = 0; i < 64; i++)
    {
        pool.Queue(() =>
        {
            release.Wait(TimeSpan.FromSeconds(60));
            Interlocked.Increment(ref completed);
            Interlocked.Decrement(ref outstanding);
        });
    }
}

while (clock.Elapsed.TotalSeconds < seconds)
{
    while (Volatile.Read(ref outstanding) < backlog)
    {
        Interlocked.Increment(ref outstanding);
        pool.Queue(() =>
        {
            long start = Stopwatch.GetTimestamp();
            while (Stopwatch.GetElapsedTime(start) < itemTime)
            {
                Thread.SpinWait(20);
            }

            Interlocked.Increment(ref completed);
            Interlocked.Decrement(ref outstanding);
        });
    }

    peak = Math.Max(peak, pool.LiveWorkerCount);
    Thread.Sleep(1);
}

release.Set();
var drain = Stopwatch.StartNew();
while (Volatile.Read(ref outstanding) > 0)
{
    peak = Math.Max(peak, pool.LiveWorkerCount);
    if (drain.Elapsed > TimeSpan.FromSeconds(60))
    {
        Console.WriteLine($"outstanding={Volatile.Read(ref outstanding)}");
        return 3;
    }

    Thread.Sleep(1);
}

Console.WriteLine($"processor-count={Environment.ProcessorCount}");
Console.WriteLine($"workers={workers}");
Console.WriteLine($"peak-live={peak}");
Console.WriteLine($"completed={Interlocked.Read(ref completed)}");
Console.WriteLine($"guard-fired={string.Join(' ', listener.Fired)}");
Console.WriteLine($"seconds={clock.Elapsed.TotalSeconds.ToString("0.00", CultureInfo.InvariantCulture)}");
return 0;
