using Microsoft.Extensions.Hosting;

namespace SlimPool.Tests.DependencyInjection;

/// <summary>
/// A hosted service registered after the pools, so the host stops it first with the same stopping token; it
/// signals <see cref="Cancelled"/> from a callback on that token. The token runs its callbacks one after the
/// other, the last registered first, so by then the pools' shutdowns, registered later, have seen it.
/// </summary>
internal sealed class StoppingTokenProbe : IHostedService, IDisposable
{
    private CancellationTokenRegistration _registration;

    public ManualResetEventSlim Cancelled { get; } = new();

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken)
    {
        _registration = cancellationToken.Register(Cancelled.Set);
        return Task.CompletedTask;
    }

    public void Dispose()
    {
        _registration.Dispose();
        Cancelled.Dispose();
    }
}
