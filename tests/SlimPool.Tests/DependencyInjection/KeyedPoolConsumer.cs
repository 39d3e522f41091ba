using Microsoft.Extensions.DependencyInjection;

namespace SlimPool.Tests.DependencyInjection;

/// <summary>A service that takes two named pools through <see cref="FromKeyedServicesAttribute"/>.</summary>
public sealed class KeyedPoolConsumer(
    [FromKeyedServices("cpu")] SlimThreadPool cpu,
    [FromKeyedServices("io")] IThreadPool io)
{
    public SlimThreadPool Cpu { get; } = cpu;

    public IThreadPool Io { get; } = io;
}
