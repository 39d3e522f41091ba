using System.Diagnostics;
using SlimPool.Bench.Running;

namespace SlimPool.Bench.Tests;

/// <summary>How a repetition warms up before its measured run (<see cref="Measurement.WarmUpThenMeasure"/>).</summary>
public sealed class WarmUpTests
{
    [Fact]
    public void WarmUpThenMeasure_RunThatCompilesNothing_WarmsUpThenReturnsTheLastRun()
    {
        int runs = 0;
        Func<Measurement> once = () => new Measurement([new("run", "count", ++runs)]);
        once(); // compile the lambda and the record before counting

        Measurement measured = Measurement.WarmUpThenMeasure(once);

        // One warm-up here; other tests compiling in parallel in this process can add some (the count is process-wide).
        Assert.InRange(runs, 3, 6);
        Assert.Equal(runs, measured.Primary.Value);
    }

    [Fact]
    public void WarmUpThenMeasure_EveryRunCompilesNewMethods_StopsAfterFourWarmUps()
    {
        int runs = 0;
        Measurement measured = Measurement.WarmUpThenMeasure(() =>
        {
            runs++;
            CompileFreshMethods(20);
            return new Measurement([new("run", "count", runs)]);
        });

        Assert.Equal(5, runs);
        Assert.Equal(5, measured.Primary.Value);
    }

    [Fact]
    public void JitQuiescence_Wait_ReturnsWithinItsBound()
    {
        var stopwatch = Stopwatch.StartNew();
        JitQuiescence.Wait();

        Assert.True(stopwatch.Elapsed < TimeSpan.FromSeconds(10), $"waited {stopwatch.Elapsed}");
    }

    // Each call compiles methods the JIT has not seen: new dynamic methods, invoked once.
    private static void CompileFreshMethods(int count)
    {
        for (int i = 0; i < count; i++)
        {
            var method = new System.Reflection.Emit.DynamicMethod($"fresh{Guid.NewGuid():N}", typeof(int), Type.EmptyTypes);
            System.Reflection.Emit.ILGenerator il = method.GetILGenerator();
            il.Emit(System.Reflection.Emit.OpCodes.Ldc_I4, i);
            il.Emit(System.Reflection.Emit.OpCodes.Ret);
            Assert.Equal(i, ((Func<int>)method.CreateDelegate(typeof(Func<int>)))());
        }
    }
}
