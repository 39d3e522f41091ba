using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.DependencyInjection;

/// <summary>
/// A pool's options are checked when the host starts, not when the pool is first resolved: a bad configured value fails
/// <c>StartAsync</c> with the configuration path in the message.
/// </summary>
public sealed class ValidateOnStartTests
{
    [Fact]
    public async Task StartAsync_ConfiguredWorkerCountOutOfRange_FailsNamingTheConfigurationPath()
    {
        using IHost host = Build(new() { ["SlimPool:WorkerCount"] = "0" }, (services, configuration) => services.AddSlimThreadPool(configuration.GetSection("SlimPool")));

        var exception = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync().WaitAsync(Bounded.Timeout));
        Assert.Contains("SlimPool:WorkerCount", exception.Message, StringComparison.Ordinal);
        Assert.Contains("'0'", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task StartAsync_KeyedPoolsSectionWithABadTimeout_FailsNamingItsPath()
    {
        using IHost host = Build(
            new() { ["Pools:io:WorkerCount"] = "2", ["Pools:io:StarvationTimeout"] = "-00:00:01" },
            (services, configuration) => services.AddSlimThreadPool("io", configuration.GetSection("Pools:io")));

        var exception = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync().WaitAsync(Bounded.Timeout));
        Assert.Equal("io", exception.OptionsName);
        Assert.Contains("Pools:io:StarvationTimeout", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task StartAsync_OptionsBindConfigurationWithABadValue_FailsAtStartWithTheRejectionInside()
    {
        // OptionsBuilder.BindConfiguration binds through the Options package, which reports a setter's rejection as the
        // binder does (a TargetInvocationException around it, no path); ValidateOnStart still moves the failure to start.
        using IHost host = Build([], (services, _) => services.AddSlimThreadPool("io").BindConfiguration("Pools:io"));
        var configuration = (IConfigurationRoot)host.Services.GetRequiredService<IConfiguration>();
        configuration["Pools:io:WorkerCount"] = "0";

        Exception exception = await Assert.ThrowsAnyAsync<Exception>(() => host.StartAsync().WaitAsync(Bounded.Timeout));
        var rejected = Assert.IsType<ArgumentOutOfRangeException>(exception.InnerException ?? exception);
        Assert.Equal(nameof(SlimThreadPoolOptions.WorkerCount), rejected.ParamName);
    }

    [Fact]
    public async Task StartAsync_MaxWorkersBelowWorkerCount_FailsNamingBothOptionsAndThePool()
    {
        using IHost host = Build(
            new() { ["SlimPool:WorkerCount"] = "4", ["SlimPool:MaxWorkers"] = "2" },
            (services, configuration) => services.AddSlimThreadPool(configuration.GetSection("SlimPool")));

        var exception = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync().WaitAsync(Bounded.Timeout));
        Assert.Contains("MaxWorkers (2) must be at least WorkerCount (4)", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task StartAsync_ConfigureDelegateSetsAnInvalidValue_FailsNamingTheOption()
    {
        using IHost host = Build([], (services, _) => services.AddSlimThreadPool(options => options.WorkerCount = -1));

        var exception = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => host.StartAsync().WaitAsync(Bounded.Timeout));
        Assert.Equal(nameof(SlimThreadPoolOptions.WorkerCount), exception.ParamName);
    }

    [Fact]
    public async Task StartAsync_ValidConfiguration_StartsAndTheBoundPoolRuns()
    {
        using IHost host = Build(new() { ["SlimPool:WorkerCount"] = "2", ["SlimPool:MaxWorkers"] = "3" }, (services, configuration) => services.AddSlimThreadPool(configuration.GetSection("SlimPool")));

        await host.StartAsync().WaitAsync(Bounded.Timeout);
        SlimThreadPool pool = host.Services.GetRequiredService<SlimThreadPool>();
        Assert.Equal(2, pool.WorkerCount);
        await pool.QueueAsync(() => { }).AsTask().WaitAsync(Bounded.Timeout);
        await host.StopAsync().WaitAsync(Bounded.Timeout);
    }

    private static IHost Build(Dictionary<string, string?> values, Action<IServiceCollection, IConfiguration> register)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        IConfiguration configuration = new ConfigurationBuilder().AddInMemoryCollection(values).Build();
        register(builder.Services, configuration);
        return builder.Build();
    }
}
