using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using SlimPool.Extensions.DependencyInjection;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.DependencyInjection;

public sealed class AddSlimThreadPoolTests
{
    [Fact]
    public void AddSlimThreadPool_Default_ResolvesOneInstanceForBothServicesThatRunsItems()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool(options => options.WorkerCount = 2);
        using ServiceProvider provider = services.BuildServiceProvider(validateScopes: true);

        SlimThreadPool pool = provider.GetRequiredService<SlimThreadPool>();

        Assert.Same(pool, provider.GetRequiredService<IThreadPool>());
        Assert.Same(pool, provider.GetRequiredService<SlimThreadPool>());
        using var done = new CountdownEvent(100);
        for (int i = 0; i < 100; i++)
        {
            provider.GetRequiredService<IThreadPool>().Queue(() => done.Signal());
        }

        Bounded.Wait(done, "items queued on the resolved pool");
    }

    [Fact]
    public void AddSlimThreadPool_ConfigureDelegate_AppliesWorkerCountAndName()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool(options =>
        {
            options.WorkerCount = 3;
            options.Name = "Configured";
        });
        using ServiceProvider provider = services.BuildServiceProvider();

        SlimThreadPool pool = provider.GetRequiredService<SlimThreadPool>();

        Assert.Equal(3, pool.WorkerCount);
        Assert.Equal("Configured", pool.Name);
    }

    [Fact]
    public void AddSlimThreadPool_NoConfigure_UsesTheDefaults()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool();
        using ServiceProvider provider = services.BuildServiceProvider();

        SlimThreadPool pool = provider.GetRequiredService<SlimThreadPool>();

        Assert.Equal(Environment.ProcessorCount, pool.WorkerCount);
        Assert.Equal("SlimPool", pool.Name);
    }

    [Fact]
    public void AddSlimThreadPool_CalledTwice_RegistersOnePoolWithBothConfigurationsInOrder()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool(options =>
        {
            options.WorkerCount = 3;
            options.Name = "First";
        });
        services.AddSlimThreadPool(options => options.Name = "Second");
        using ServiceProvider provider = services.BuildServiceProvider();

        SlimThreadPool pool = provider.GetRequiredService<SlimThreadPool>();

        Assert.Single(services, d => d.ServiceType == typeof(SlimThreadPool));
        Assert.Single(services, d => d.ServiceType == typeof(IThreadPool));
        Assert.Single(services, d => d.ServiceType == typeof(IHostedService));
        Assert.Single(provider.GetServices<SlimThreadPool>());
        Assert.Equal(3, pool.WorkerCount);
        Assert.Equal("Second", pool.Name);
    }

    [Fact]
    public void AddSlimThreadPool_ReturnedBuilder_ChainsFurtherConfiguration()
    {
        var services = new ServiceCollection();
        OptionsBuilder<SlimThreadPoolOptions> builder = services.AddSlimThreadPool("cpu", options => options.WorkerCount = 1);
        builder.PostConfigure(options => options.WorkerCount = 2);
        using ServiceProvider provider = services.BuildServiceProvider();

        Assert.Equal("cpu", builder.Name);
        Assert.Same(services, builder.Services);
        Assert.Equal(2, provider.GetRequiredKeyedService<SlimThreadPool>("cpu").WorkerCount);
    }

    [Fact]
    public void AddSlimThreadPool_TwoNames_GivesTwoDistinctPoolsNamedAfterTheirKeys()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool("cpu", options => options.WorkerCount = 2);
        services.AddSlimThreadPool("io", options => options.WorkerCount = 1);
        using ServiceProvider provider = services.BuildServiceProvider();

        SlimThreadPool cpu = provider.GetRequiredKeyedService<SlimThreadPool>("cpu");
        SlimThreadPool io = provider.GetRequiredKeyedService<SlimThreadPool>("io");

        Assert.NotSame(cpu, io);
        Assert.Same(cpu, provider.GetRequiredKeyedService<IThreadPool>("cpu"));
        Assert.Same(io, provider.GetRequiredKeyedService<IThreadPool>("io"));
        Assert.Equal("cpu", cpu.Name);
        Assert.Equal("io", io.Name);
        Assert.Equal(2, cpu.WorkerCount);
        Assert.Equal(1, io.WorkerCount);
        Assert.Null(provider.GetService<SlimThreadPool>()); // no default pool was registered
    }

    [Fact]
    public void AddSlimThreadPool_KeyedPools_InjectedThroughFromKeyedServices()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool("cpu", options => options.WorkerCount = 1);
        services.AddSlimThreadPool("io", options => options.WorkerCount = 1);
        services.AddSingleton<KeyedPoolConsumer>();
        using ServiceProvider provider = services.BuildServiceProvider(new ServiceProviderOptions { ValidateOnBuild = true, ValidateScopes = true });

        KeyedPoolConsumer consumer = provider.GetRequiredService<KeyedPoolConsumer>();

        Assert.Same(provider.GetRequiredKeyedService<SlimThreadPool>("cpu"), consumer.Cpu);
        Assert.Same(provider.GetRequiredKeyedService<SlimThreadPool>("io"), consumer.Io);
        Assert.Equal("cpu", consumer.Cpu.Name);
        Assert.Equal("io", ((SlimThreadPool)consumer.Io).Name);
    }

    [Fact]
    public void AddSlimThreadPool_NamedWithExplicitName_KeepsTheConfiguredName()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool("cpu", options => options.Name = "Compute");
        using ServiceProvider provider = services.BuildServiceProvider();

        Assert.Equal("Compute", provider.GetRequiredKeyedService<SlimThreadPool>("cpu").Name);
    }

    [Fact]
    public void AddSlimThreadPool_DefaultAndNamed_AreDifferentPools()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool(options => options.WorkerCount = 1);
        services.AddSlimThreadPool("io", options => options.WorkerCount = 1);
        using ServiceProvider provider = services.BuildServiceProvider();

        SlimThreadPool defaultPool = provider.GetRequiredService<SlimThreadPool>();
        SlimThreadPool io = provider.GetRequiredKeyedService<SlimThreadPool>("io");

        Assert.NotSame(defaultPool, io);
        Assert.Equal("SlimPool", defaultPool.Name);
        Assert.Equal("io", io.Name);
    }

    [Fact]
    public void AddSlimThreadPool_BindConfiguration_SetsWorkerCountNameCapacityAndStarvationTimeout()
    {
        IConfiguration configuration = Configuration(new()
        {
            ["SlimPool:WorkerCount"] = "3",
            ["SlimPool:Name"] = "FromConfig",
            ["SlimPool:BoundedCapacity"] = "64",
            ["SlimPool:StarvationTimeout"] = "00:00:00.250",
        });
        var services = new ServiceCollection();
        services.AddSingleton(configuration);
        services.AddSlimThreadPool().BindConfiguration("SlimPool");
        using ServiceProvider provider = services.BuildServiceProvider();

        SlimThreadPool pool = provider.GetRequiredService<SlimThreadPool>();
        SlimThreadPoolOptions options = provider.GetRequiredService<IOptionsMonitor<SlimThreadPoolOptions>>().Get(Options.DefaultName);

        Assert.Equal(3, pool.WorkerCount);
        Assert.Equal("FromConfig", pool.Name);
        Assert.Equal(64, options.BoundedCapacity);
        Assert.Equal(TimeSpan.FromMilliseconds(250), options.StarvationTimeout);
    }

    [Fact]
    public void AddSlimThreadPool_ConfigurationSection_BindsTheDefaultPool()
    {
        IConfiguration configuration = Configuration(new()
        {
            ["SlimPool:WorkerCount"] = "2",
            ["SlimPool:Name"] = "Section",
            ["SlimPool:BoundedCapacity"] = "8",
            ["SlimPool:StarvationTimeout"] = "00:00:01",
        });
        var services = new ServiceCollection();
        services.AddSlimThreadPool(configuration.GetSection("SlimPool"));
        using ServiceProvider provider = services.BuildServiceProvider();

        SlimThreadPool pool = provider.GetRequiredService<SlimThreadPool>();
        SlimThreadPoolOptions options = provider.GetRequiredService<IOptionsMonitor<SlimThreadPoolOptions>>().CurrentValue;

        Assert.Equal(2, pool.WorkerCount);
        Assert.Equal("Section", pool.Name);
        Assert.Equal(8, options.BoundedCapacity);
        Assert.Equal(TimeSpan.FromSeconds(1), options.StarvationTimeout);
    }

    [Fact]
    public void AddSlimThreadPool_NamedConfigurationSection_BindsThatPoolAndNamesItAfterItsKey()
    {
        IConfiguration configuration = Configuration(new()
        {
            ["Pools:io:WorkerCount"] = "1",
            ["Pools:io:BoundedCapacity"] = "16",
            ["Pools:cpu:WorkerCount"] = "2",
            ["Pools:cpu:Name"] = "Compute",
        });
        var services = new ServiceCollection();
        services.AddSlimThreadPool("io", configuration.GetSection("Pools:io"));
        services.AddSlimThreadPool("cpu", configuration.GetSection("Pools:cpu"));
        using ServiceProvider provider = services.BuildServiceProvider();

        SlimThreadPool io = provider.GetRequiredKeyedService<SlimThreadPool>("io");
        SlimThreadPool cpu = provider.GetRequiredKeyedService<SlimThreadPool>("cpu");
        IOptionsMonitor<SlimThreadPoolOptions> options = provider.GetRequiredService<IOptionsMonitor<SlimThreadPoolOptions>>();

        Assert.Equal(1, io.WorkerCount);
        Assert.Equal("io", io.Name);
        Assert.Equal(16, options.Get("io").BoundedCapacity);
        Assert.Equal(2, cpu.WorkerCount);
        Assert.Equal("Compute", cpu.Name);
        Assert.Null(options.Get("cpu").BoundedCapacity);
    }

    [Fact]
    public void AddSlimThreadPool_NothingResolved_CreatesNoPool()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool();
        services.AddSlimThreadPool("io");
        using ServiceProvider provider = services.BuildServiceProvider();

        _ = provider.GetServices<IHostedService>().ToList();

        Assert.Empty(provider.GetRequiredService<SlimThreadPoolTracker>().Snapshot());
    }

    [Fact]
    public void GetRequiredService_InvalidWorkerCount_ThrowsNamingTheOption()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool(options => options.WorkerCount = 0);
        using ServiceProvider provider = services.BuildServiceProvider();

        var exception = Assert.Throws<ArgumentOutOfRangeException>(() => provider.GetRequiredService<SlimThreadPool>());
        Assert.Equal(nameof(SlimThreadPoolOptions.WorkerCount), exception.ParamName);
    }

    [Fact]
    public void GetRequiredService_MaxWorkersBelowWorkerCountInConfiguration_ThrowsAValidationFailureNamingBothOptions()
    {
        IConfiguration configuration = Configuration(new()
        {
            ["SlimPool:WorkerCount"] = "4",
            ["SlimPool:MaxWorkers"] = "2",
        });
        var services = new ServiceCollection();
        services.AddSlimThreadPool(configuration.GetSection("SlimPool"));
        using ServiceProvider provider = services.BuildServiceProvider();

        // Without a host nothing validates at start: the options' validator fails when the pool is first resolved.
        var exception = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<SlimThreadPool>());
        Assert.Contains("MaxWorkers (2) must be at least WorkerCount (4)", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AddSlimThreadPool_NullServices_ThrowsArgumentNullException()
    {
        IConfiguration configuration = Configuration([]);

        Assert.Equal("services", Assert.Throws<ArgumentNullException>(() => SlimThreadPoolServiceCollectionExtensions.AddSlimThreadPool(null!)).ParamName);
        Assert.Equal("services", Assert.Throws<ArgumentNullException>(() => SlimThreadPoolServiceCollectionExtensions.AddSlimThreadPool(null!, configuration)).ParamName);
        Assert.Equal("services", Assert.Throws<ArgumentNullException>(() => SlimThreadPoolServiceCollectionExtensions.AddSlimThreadPool(null!, "io")).ParamName);
        Assert.Equal("services", Assert.Throws<ArgumentNullException>(() => SlimThreadPoolServiceCollectionExtensions.AddSlimThreadPool(null!, "io", configuration)).ParamName);
    }

    [Fact]
    public void AddSlimThreadPool_NullName_ThrowsArgumentNullException()
    {
        var services = new ServiceCollection();

        Assert.Equal("name", Assert.Throws<ArgumentNullException>(() => services.AddSlimThreadPool((string)null!)).ParamName);
        Assert.Equal("name", Assert.Throws<ArgumentNullException>(() => services.AddSlimThreadPool(null!, Configuration([]))).ParamName);
        Assert.Empty(services);
    }

    [Theory]
    [InlineData("")]
    [InlineData("   ")]
    public void AddSlimThreadPool_EmptyName_ThrowsArgumentException(string name)
    {
        var services = new ServiceCollection();

        Assert.Equal("name", Assert.Throws<ArgumentException>(() => services.AddSlimThreadPool(name)).ParamName);
        Assert.Equal("name", Assert.Throws<ArgumentException>(() => services.AddSlimThreadPool(name, Configuration([]))).ParamName);
        Assert.Empty(services);
    }

    [Fact]
    public void AddSlimThreadPool_NullConfiguration_ThrowsArgumentNullException()
    {
        var services = new ServiceCollection();

        Assert.Equal("configuration", Assert.Throws<ArgumentNullException>(() => services.AddSlimThreadPool((IConfiguration)null!)).ParamName);
        Assert.Equal("configuration", Assert.Throws<ArgumentNullException>(() => services.AddSlimThreadPool("io", (IConfiguration)null!)).ParamName);
        Assert.Empty(services);
    }

    private static IConfiguration Configuration(Dictionary<string, string?> values) =>
        new ConfigurationBuilder().AddInMemoryCollection(values).Build();
}
