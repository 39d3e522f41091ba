using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using System.IO.Pipelines;
using SlimPool.Bench.Pools;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// real-work's async case: N pipes, each with a writer flow and a reader flow started on the pool; the writer
/// sends length-prefixed messages, flushing each, and the reader parses them; the run ends when every reader has
/// seen every message (fan-in). Default <see cref="PipeOptions"/>: continuations go to the current
/// SynchronizationContext when there is one (SlimPool's, on SlimPool) and to the built-in pool otherwise.
/// </summary>
internal static class PipelineFlow
{
    public const int Messages = 200;

    private const int PayloadBytes = 60;

    public static double Run<TPool>(TPool pool, int flows)
        where TPool : struct, IBenchPool
    {
        var readers = new Task<int>[flows];
        var writers = new Task[flows];
        long start = Stopwatch.GetTimestamp();
        for (int i = 0; i < flows; i++)
        {
            var pipe = new Pipe();
            readers[i] = RunReader(pool, pipe.Reader);
            writers[i] = pool.Run(() => Write(pipe.Writer));
        }

        if (!Task.WaitAll([.. readers, .. writers], TimeSpan.FromMinutes(5)))
        {
            throw new TimeoutException("real-work pipelines did not finish within 5 minutes");
        }

        double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        foreach (Task<int> reader in readers)
        {
            if (reader.Result != Messages)
            {
                throw new InvalidOperationException($"a reader saw {reader.Result} messages, not {Messages}");
            }
        }

        return ms;
    }

    private static Task<int> RunReader<TPool>(TPool pool, PipeReader reader)
        where TPool : struct, IBenchPool
    {
        var result = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        _ = pool.Run(async () =>
        {
            try
            {
                result.SetResult(await Read(reader).ConfigureAwait(true));
            }
            catch (Exception exception)
            {
                result.SetException(exception);
            }
        });
        return result.Task;
    }

    private static async Task Write(PipeWriter writer)
    {
        for (int m = 0; m < Messages; m++)
        {
            Memory<byte> memory = writer.GetMemory(4 + PayloadBytes);
            BinaryPrimitives.WriteInt32LittleEndian(memory.Span, PayloadBytes);
            memory.Span.Slice(4, PayloadBytes).Fill((byte)m);
            writer.Advance(4 + PayloadBytes);
            await writer.FlushAsync().ConfigureAwait(true);
        }

        await writer.CompleteAsync().ConfigureAwait(true);
    }

    private static async Task<int> Read(PipeReader reader)
    {
        int messages = 0;
        while (true)
        {
            ReadResult read = await reader.ReadAsync().ConfigureAwait(true);
            ReadOnlySequence<byte> buffer = read.Buffer;
            while (TryTakeMessage(ref buffer))
            {
                messages++;
            }

            reader.AdvanceTo(buffer.Start, buffer.End);
            if (read.IsCompleted)
            {
                await reader.CompleteAsync().ConfigureAwait(true);
                return messages;
            }
        }
    }

    private static bool TryTakeMessage(ref ReadOnlySequence<byte> buffer)
    {
        var sequence = new SequenceReader<byte>(buffer);
        if (!sequence.TryReadLittleEndian(out int length) || sequence.Remaining < length)
        {
            return false;
        }

        buffer = buffer.Slice(4 + length);
        return true;
    }
}
