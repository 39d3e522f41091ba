using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using SlimPool;

namespace SlimPool.Extensions.DependencyInjection;

/// <summary>
/// Shuts down the pools the container created when the host stops: a drain, which the host's stopping token
/// (cancelled when the host's shutdown timeout expires) turns into an abandon. An abandon is always reported: as a
/// warning through the host's logger, or, with no logger registered, to <see cref="System.Diagnostics.Trace"/>.
/// </summary>
internal sealed class SlimThreadPoolHostedService : IHostedService
{
    private static readonly Action<ILogger, string, int, int, Exception?> s_abandoned = LoggerMessage.Define<string, int, int>(
        LogLevel.Warning,
        new EventId(1, "SlimThreadPoolAbandoned"),
        "SlimThreadPool '{PoolName}' did not finish draining before the host's shutdown timeout: {AbandonedCount} queued items were not run and {RunningCount} were still running.");

    private static readonly Action<ILogger, string, Exception?> s_drained = LoggerMessage.Define<string>(
        LogLevel.Debug,
        new EventId(2, "SlimThreadPoolDrained"),
        "SlimThreadPool '{PoolName}' drained: every accepted item ran.");

    private readonly SlimThreadPoolTracker _tracker;
    private readonly ILogger? _logger;

    public SlimThreadPoolHostedService(SlimThreadPoolTracker tracker, ILogger<SlimThreadPoolHostedService>? logger = null)
    {
        ArgumentNullException.ThrowIfNull(tracker);
        _tracker = tracker;
        _logger = logger;
    }

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        SlimThreadPool[] pools = _tracker.Snapshot();
        if (pools.Length == 0)
        {
            return;
        }

        // All at once: each pool drains on its own workers. ShutdownAsync never ends cancelled: a cancelled token
        // turns the drain into an abandon, and the items not run come back in the result.
        ShutdownResult[] results = await Task.WhenAll(pools.Select(pool => pool.ShutdownAsync(ShutdownMode.Drain, cancellationToken))).ConfigureAwait(false);
        for (int i = 0; i < pools.Length; i++)
        {
            ShutdownResult result = results[i];
            bool incomplete = result.AbandonedCount > 0 || result.RunningWorkItemCount > 0;
            if (_logger is null)
            {
                if (incomplete)
                {
                    System.Diagnostics.Trace.TraceWarning(
                        $"SlimThreadPool '{pools[i].Name}' did not finish draining before the host's shutdown timeout: {result.AbandonedCount} queued items were not run and {result.RunningWorkItemCount} were still running.");
                }
            }
            else if (incomplete)
            {
                s_abandoned(_logger, pools[i].Name, result.AbandonedCount, result.RunningWorkItemCount, null);
            }
            else
            {
                s_drained(_logger, pools[i].Name, null);
            }
        }
    }
}
