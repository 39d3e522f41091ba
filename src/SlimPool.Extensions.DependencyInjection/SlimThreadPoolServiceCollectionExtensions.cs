using System.Diagnostics.CodeAnalysis;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using SlimPool;
using SlimPool.Extensions.DependencyInjection;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// Registers <see cref="SlimThreadPool"/>s with an <see cref="IServiceCollection"/>: one default pool, and any
/// number of named pools registered as keyed services.
/// </summary>
/// <remarks>
/// <para>Each pool is a singleton, created on first use from its options (the Options pattern:
/// <see cref="IOptionsMonitor{TOptions}.Get(string)"/> with the pool's name, or <see cref="Options.Options.DefaultName"/>
/// for the default pool). The pool copies the options when it is created: later changes, including a reload of
/// the configuration, do not affect it.</para>
/// <para>Every method returns the pool's <see cref="OptionsBuilder{TOptions}"/>, so the usual options methods
/// chain: <c>.BindConfiguration("SlimPool")</c> binds a configuration section,
/// <c>.Configure&lt;TDep&gt;(...)</c> uses other services, <c>.Validate(...)</c> adds checks.</para>
/// <para>Validation: every registration asks for <c>ValidateOnStart</c>, so a generic host makes and checks each pool's
/// options when it starts. A value the options reject, bound through one of the <see cref="IConfiguration"/> overloads,
/// fails with an <see cref="OptionsValidationException"/> naming its configuration path and value; settings that
/// contradict each other (<see cref="SlimThreadPoolOptions.MaxWorkers"/> below
/// <see cref="SlimThreadPoolOptions.WorkerCount"/>) fail with one naming the pool. Without a host, the same checks run
/// when the pool is first resolved.</para>
/// <para>Disposal: the container owns the pools; disposing it (or the host) disposes each pool it created, which
/// drains it: every accepted item runs, then the workers exit. Under a generic host, a hosted service also
/// shuts down every pool the container created when the host stops, with
/// <see cref="SlimThreadPool.ShutdownAsync(ShutdownMode, CancellationToken)"/> in
/// <see cref="ShutdownMode.Drain"/> mode and the host's stopping token: if the host's shutdown timeout expires
/// first, the drain turns into an abandon (items already running finish; the others are not run, and their
/// number is logged as a warning when an <see cref="Logging.ILogger{TCategoryName}"/> is available). Pools that
/// nothing resolved are never created.</para>
/// <para>Calling a method again for the same pool (the default pool, or the same name) registers nothing more:
/// there is still one pool, and the configuration delegates and bindings accumulate in order, as with
/// <see cref="OptionsServiceCollectionExtensions.Configure{TOptions}(IServiceCollection, string, Action{TOptions})"/>.</para>
/// </remarks>
public static class SlimThreadPoolServiceCollectionExtensions
{
    private static readonly string s_defaultPoolName = new SlimThreadPoolOptions().Name;

    /// <summary>
    /// Registers the default pool: <see cref="SlimThreadPool"/> and <see cref="IThreadPool"/> as singletons
    /// that resolve to the same instance. Another <see cref="IThreadPool"/> registered earlier is kept
    /// (<see cref="ServiceCollectionDescriptorExtensions.TryAdd(IServiceCollection, ServiceDescriptor)"/>).
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">Sets the pool's options (worker count, name, capacity...); <see langword="null"/> for the defaults.</param>
    /// <returns>The builder of the default pool's options (named <see cref="Options.Options.DefaultName"/>), to chain more configuration.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> is <see langword="null"/>.</exception>
    public static OptionsBuilder<SlimThreadPoolOptions> AddSlimThreadPool(this IServiceCollection services, Action<SlimThreadPoolOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        AddShared(services);
        services.TryAddSingleton(static provider => CreatePool(provider, Options.Options.DefaultName));
        services.TryAddSingleton<IThreadPool>(static provider => provider.GetRequiredService<SlimThreadPool>());
        return Configure(services.AddOptions<SlimThreadPoolOptions>(), configure);
    }

    /// <summary>
    /// Registers the default pool, like <see cref="AddSlimThreadPool(IServiceCollection, Action{SlimThreadPoolOptions})"/>,
    /// with its options bound from <paramref name="configuration"/> (keys named after the properties of
    /// <see cref="SlimThreadPoolOptions"/>: <c>WorkerCount</c>, <c>Name</c>, <c>BoundedCapacity</c>,
    /// <c>StarvationTimeout</c>...).
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">The configuration section to bind, for example <c>builder.Configuration.GetSection("SlimPool")</c>.</param>
    /// <returns>The builder of the default pool's options, to chain more configuration.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="configuration"/> is <see langword="null"/>.</exception>
    [RequiresDynamicCode(BinderMessage)]
    [RequiresUnreferencedCode(BinderMessage)]
    public static OptionsBuilder<SlimThreadPoolOptions> AddSlimThreadPool(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        return BindReportingPaths(services.AddSlimThreadPool(), configuration);
    }

    /// <summary>
    /// Registers a named pool: <see cref="SlimThreadPool"/> and <see cref="IThreadPool"/> as keyed singletons
    /// under <paramref name="name"/>, resolving to the same instance (inject with
    /// <c>[FromKeyedServices("name")]</c>, or call <c>GetRequiredKeyedService&lt;SlimThreadPool&gt;("name")</c>).
    /// Its options are the named options <paramref name="name"/>; if their <see cref="SlimThreadPoolOptions.Name"/>
    /// is left at its default (<c>"SlimPool"</c>), the pool is named <paramref name="name"/>.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="name">The pool's key and options name.</param>
    /// <param name="configure">Sets the pool's options; <see langword="null"/> for the defaults.</param>
    /// <returns>The builder of the pool's named options, to chain more configuration.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="name"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> is empty or only white space.</exception>
    public static OptionsBuilder<SlimThreadPoolOptions> AddSlimThreadPool(this IServiceCollection services, string name, Action<SlimThreadPoolOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        AddShared(services);
        bool registered = services.Any(d => d.IsKeyedService && d.ServiceType == typeof(SlimThreadPool) && Equals(d.ServiceKey, name));
        if (!registered)
        {
            services.AddKeyedSingleton(name, static (provider, key) => CreatePool(provider, (string)key!));
            services.TryAddKeyedSingleton<IThreadPool>(name, static (provider, key) => provider.GetRequiredKeyedService<SlimThreadPool>(key));
            services.PostConfigure<SlimThreadPoolOptions>(name, options =>
            {
                if (options.Name == s_defaultPoolName)
                {
                    options.Name = name;
                }
            });
        }

        return Configure(services.AddOptions<SlimThreadPoolOptions>(name), configure);
    }

    /// <summary>
    /// Registers a named pool, like <see cref="AddSlimThreadPool(IServiceCollection, string, Action{SlimThreadPoolOptions})"/>,
    /// with its options bound from <paramref name="configuration"/>.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="name">The pool's key and options name.</param>
    /// <param name="configuration">The configuration section to bind, for example <c>builder.Configuration.GetSection("Pools:io")</c>.</param>
    /// <returns>The builder of the pool's named options, to chain more configuration.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/>, <paramref name="name"/> or <paramref name="configuration"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> is empty or only white space.</exception>
    [RequiresDynamicCode(BinderMessage)]
    [RequiresUnreferencedCode(BinderMessage)]
    public static OptionsBuilder<SlimThreadPoolOptions> AddSlimThreadPool(this IServiceCollection services, string name, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentNullException.ThrowIfNull(configuration);
        return BindReportingPaths(services.AddSlimThreadPool(name), configuration);
    }

    private const string BinderMessage = "Binding options from configuration uses reflection on SlimThreadPoolOptions; use the overload with a configure delegate when trimming or compiling ahead of time.";

    // What OptionsBuilder.Bind registers (the binding, and a change token for reloads), with one difference: a value the
    // options reject (a setter's ArgumentException, which the binder wraps in a TargetInvocationException) fails with
    // an OptionsValidationException that names its configuration path and value, at host start (ValidateOnStart).
    [RequiresDynamicCode(BinderMessage)]
    [RequiresUnreferencedCode(BinderMessage)]
    private static OptionsBuilder<SlimThreadPoolOptions> BindReportingPaths(OptionsBuilder<SlimThreadPoolOptions> builder, IConfiguration configuration)
    {
        builder.Services.AddSingleton<IOptionsChangeTokenSource<SlimThreadPoolOptions>>(new ConfigurationChangeTokenSource<SlimThreadPoolOptions>(builder.Name, configuration));
        string optionsName = builder.Name;
        return builder.Configure(options =>
        {
            try
            {
                configuration.Bind(options);
            }
            catch (Exception exception) when (RejectedValue(exception) is { ParamName: { } option } rejected)
            {
                string path = configuration is IConfigurationSection section ? ConfigurationPath.Combine(section.Path, option) : option;
                throw new OptionsValidationException(
                    optionsName,
                    typeof(SlimThreadPoolOptions),
                    [$"{SlimThreadPoolOptionsValidator.Describe(optionsName)}: {path} ('{configuration[option]}') is not valid: {rejected.Message}"]);
            }
        });
    }

    private static ArgumentException? RejectedValue(Exception? exception)
    {
        for (; exception is not null; exception = exception.InnerException)
        {
            if (exception is ArgumentException argument)
            {
                return argument;
            }
        }

        return null;
    }

    private static void AddShared(IServiceCollection services)
    {
        services.AddOptions();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<SlimThreadPoolOptions>, SlimThreadPoolOptionsValidator>());
        services.TryAddSingleton<SlimThreadPoolTracker>();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IHostedService, SlimThreadPoolHostedService>());
    }

    // Every registration is checked when the host starts: its options are made (bound, configured) and validated then.
    private static OptionsBuilder<SlimThreadPoolOptions> Configure(OptionsBuilder<SlimThreadPoolOptions> builder, Action<SlimThreadPoolOptions>? configure)
    {
        builder.ValidateOnStart();
        return configure is null ? builder : builder.Configure(configure);
    }

    private static SlimThreadPool CreatePool(IServiceProvider provider, string optionsName)
    {
        SlimThreadPoolOptions options = provider.GetRequiredService<IOptionsMonitor<SlimThreadPoolOptions>>().Get(optionsName);
        var pool = new SlimThreadPool(options);
        provider.GetRequiredService<SlimThreadPoolTracker>().Add(pool);
        return pool;
    }
}
