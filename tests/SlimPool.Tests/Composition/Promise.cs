namespace SlimPool.Tests.Composition;

/// <summary>The names of the promises the composition test checks, one check each (see <see cref="PromiseChecks"/>).</summary>
internal static class Promise
{
    public const string NoHang = "NoCallHangs";
    public const string ApiBehaves = "ApiCallsBehaveAsDocumented";
    public const string ExactlyOnce = "AcceptedItemRunsOnceOrComesBackOnce";
    public const string RefusedNeverRuns = "RefusedItemNeverRuns";
    public const string CancelledNeverRuns = "CancelledItemNeverRuns";
    public const string ExceptionsOnce = "EachExceptionReportedOnce";
    public const string AsyncHasAHome = "AsyncContinuationHasSomewhereToRun";
    public const string NothingAfterShutdown = "NothingStartsAfterShutdownReturns";
    public const string OnPoolWorkers = "ItemsRunOnThePoolsWorkers";
    public const string SerialNoOverlap = "SerialGroupNeverOverlaps";
    public const string GroupLimit = "GroupNeverExceedsMaxConcurrency";
    public const string SerialOrder = "SerialGroupKeepsEachProducersOrder";
    public const string PoolOrder = "OneWorkerKeepsEachProducersOrder";
    public const string OwnContext = "ItemSeesItsOwnProducersAsyncLocal";
    public const string Counts = "CountsEqualTheLedger";
    public const string StartBound = "AcceptedItemStartsWithinBound";
    public const string ComputeBoundThreads = "ComputeBoundWorkAddsAtMostOneThread";
    public const string HooksPairUp = "EachWorkerRunsItsStartAndExitHookOnce";
    public const string SparesBounded = "SparesComeOnlyForBlockingOrStarvation";
    public const string IdleAfterEarlierItems = "WaitForIdleCompletesAfterTheCallersEarlierItems";
}
