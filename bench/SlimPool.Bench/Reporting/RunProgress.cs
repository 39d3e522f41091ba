using Spectre.Console;

namespace SlimPool.Bench.Reporting;

/// <summary>
/// The progress bar under the tables while a run goes on: measured child runs done out of those planned, with the
/// time left. A cell's repetitions are not known in advance (a cell stops once its intervals are narrow enough), so
/// the plan counts each cell still to come at the mean repetitions of the cells done so far (the most allowed until
/// one is done), and is made again after each cell. A null task (output redirected) shows nothing.
/// </summary>
internal sealed class RunProgress(ProgressTask? task, IReadOnlyList<int> poolsPerCell, int maxRepeat)
{
    private int _runsDone;
    private int _cellsDone;
    private int _repetitionsDone;

    /// <summary>Shows what runs now.</summary>
    public void Running(string cell, int repetition, string pool)
    {
        if (task is not null)
        {
            task.Description = Markup.Escape($"[{_cellsDone + 1}/{poolsPerCell.Count}] {cell}: repetition {repetition}, {pool}");
        }
    }

    /// <summary>One child run finished.</summary>
    public void RunDone()
    {
        _runsDone++;
        if (task is not null)
        {
            task.Value = _runsDone;
        }
    }

    /// <summary>A cell finished after <paramref name="repetitions"/> repetitions: plans the rest again.</summary>
    public void CellDone(int repetitions)
    {
        _cellsDone++;
        _repetitionsDone += repetitions;
        if (task is null)
        {
            return;
        }

        double meanRepetitions = (double)_repetitionsDone / _cellsDone;
        double planned = _runsDone;
        for (int cell = _cellsDone; cell < poolsPerCell.Count; cell++)
        {
            planned += poolsPerCell[cell] * meanRepetitions;
        }

        task.MaxValue = Math.Max(planned, _runsDone + 1e-9);
        task.Value = _runsDone;
    }

    /// <summary>The runs planned before any cell has run: every cell at the most repetitions.</summary>
    public double InitialPlan => poolsPerCell.Sum() * (double)maxRepeat;
}
