using System.Reflection;

namespace SlimPool.Tests.Api;

/// <summary>
/// The <see cref="IThreadPool"/> queueing overloads are written once, on <see cref="ThreadPoolBase"/>: each of the
/// library's pools implements every one of them with the base's method, so a pool cannot drift from the others (its own
/// argument checks, its own defaults), and outside code cannot derive from the base.
/// </summary>
public sealed class ThreadPoolBaseTests
{
    public static TheoryData<Type> Pools => new(typeof(SlimThreadPool), typeof(SlimThreadPoolGroup), typeof(ManagedThreadPool));

    [Theory]
    [MemberData(nameof(Pools))]
    public void IThreadPoolQueueOverloads_OnEveryPool_AreThreadPoolBasesMethods(Type pool)
    {
        InterfaceMapping map = pool.GetInterfaceMap(typeof(IThreadPool));
        var overloads = map.InterfaceMethods
            .Select((method, i) => (Interface: method, Target: map.TargetMethods[i]))
            .Where(pair => pair.Interface.Name is nameof(IThreadPool.Queue) or nameof(IThreadPool.TryQueue))
            .ToList();

        Assert.Equal(16, overloads.Count);
        Assert.All(overloads, pair => Assert.True(
            pair.Target.DeclaringType == typeof(ThreadPoolBase),
            $"{pool.Name} implements {pair.Interface} with {pair.Target.DeclaringType?.Name}.{pair.Target.Name}, not ThreadPoolBase's"));
    }

    [Fact]
    public void ThreadPoolBase_ItsConstructors_AreNotReachableOutsideTheLibrary()
    {
        ConstructorInfo[] constructors = typeof(ThreadPoolBase).GetConstructors(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic);

        Assert.NotEmpty(constructors);
        Assert.All(constructors, constructor => Assert.True(constructor.IsFamilyAndAssembly, $"{constructor} must be private protected"));
    }
}
