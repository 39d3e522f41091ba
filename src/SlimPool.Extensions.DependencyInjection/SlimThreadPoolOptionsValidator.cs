using Microsoft.Extensions.Options;
using SlimPool;

namespace SlimPool.Extensions.DependencyInjection;

/// <summary>
/// Checks a pool's options as its constructor will (the settings that depend on each other, such as
/// <see cref="SlimThreadPoolOptions.MaxWorkers"/> against <see cref="SlimThreadPoolOptions.WorkerCount"/>), so that a bad
/// combination fails when the host starts (every registration asks for <c>ValidateOnStart</c>) rather than when the pool
/// is first resolved.
/// </summary>
internal sealed class SlimThreadPoolOptionsValidator : IValidateOptions<SlimThreadPoolOptions>
{
    public ValidateOptionsResult Validate(string? name, SlimThreadPoolOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        try
        {
            options.Validate();
            return ValidateOptionsResult.Success;
        }
        catch (ArgumentException exception)
        {
            return ValidateOptionsResult.Fail($"{Describe(name)}: {exception.Message}");
        }
    }

    /// <summary>How a failure names the pool: the default one, or the key a keyed pool was registered under.</summary>
    internal static string Describe(string? name) =>
        string.IsNullOrEmpty(name) ? "The default SlimThreadPool's options" : $"The options of SlimThreadPool '{name}'";
}
