using System.Globalization;
using System.Runtime.InteropServices;

namespace SlimPool.Queues;

/// <summary>
/// The address range of the calling thread's stack, as the operating system reserved it: every address a local of this
/// thread can have lies in it. Linux (glibc and musl, through <c>pthread_getattr_np</c>), macOS and Windows; elsewhere,
/// on the process's main thread under Linux or macOS (whose stack grows on demand, and which musl reports only as far as
/// it has grown), or where a call fails, it reports none.
/// </summary>
internal static unsafe partial class ThreadStackBounds
{
    // pthread_attr_t is 56 bytes on x64 (glibc and musl) and on musl's arm64, 64 on glibc's; room to spare, 8-byte aligned.
    private const int PthreadAttributesLongs = 32;

    private static readonly delegate* unmanaged<nint> s_pthreadSelf;
    private static readonly delegate* unmanaged<nint, void*, int> s_pthreadGetAttributes;
    private static readonly delegate* unmanaged<void*, void**, nuint*, int> s_pthreadAttributesGetStack;
    private static readonly delegate* unmanaged<void*, int> s_pthreadAttributesDestroy;
    private static readonly delegate* unmanaged<nint, void*> s_pthreadGetStackAddress; // macOS: the stack's top
    private static readonly delegate* unmanaged<nint, nuint> s_pthreadGetStackSize;
    private static readonly delegate* unmanaged<int> s_pthreadIsMainThread; // macOS: pthread_main_np

#pragma warning disable CA1810 // the exports are looked up once, together, and only where they can exist
    static ThreadStackBounds()
#pragma warning restore CA1810
    {
        if (!OperatingSystem.IsLinux() && !OperatingSystem.IsMacOS())
        {
            return; // Windows asks kernel32; anywhere else the bounds stay unknown
        }

        try
        {
            // The process's global symbols: libc's (and libpthread's, on a glibc older than 2.34) are among them.
            nint process = NativeLibrary.GetMainProgramHandle();
            s_pthreadSelf = (delegate* unmanaged<nint>)Export(process, "pthread_self");
            if (OperatingSystem.IsMacOS())
            {
                s_pthreadGetStackAddress = (delegate* unmanaged<nint, void*>)Export(process, "pthread_get_stackaddr_np");
                s_pthreadGetStackSize = (delegate* unmanaged<nint, nuint>)Export(process, "pthread_get_stacksize_np");
                s_pthreadIsMainThread = (delegate* unmanaged<int>)Export(process, "pthread_main_np");
            }
            else
            {
                s_pthreadGetAttributes = (delegate* unmanaged<nint, void*, int>)Export(process, "pthread_getattr_np");
                s_pthreadAttributesGetStack = (delegate* unmanaged<void*, void**, nuint*, int>)Export(process, "pthread_attr_getstack");
                s_pthreadAttributesDestroy = (delegate* unmanaged<void*, int>)Export(process, "pthread_attr_destroy");
            }
        }
        catch (Exception exception) when (exception is System.ComponentModel.Win32Exception or ArgumentException)
        {
            // No handle to the process's symbols: the bounds stay unknown (a type initializer that threw would fail
            // every attach after it).
            s_pthreadSelf = null;
        }
    }

    /// <summary>
    /// The calling thread's stack: its lowest address, <paramref name="low"/>, and one past its highest,
    /// <paramref name="high"/>. False, with both zero, where they cannot be known.
    /// </summary>
    public static bool TryGetCurrent(out nuint low, out nuint high)
    {
        low = 0;
        high = 0;
        if (OperatingSystem.IsWindows())
        {
            GetCurrentThreadStackLimits(out low, out high);
        }
        else if (s_pthreadSelf == null)
        {
            return false;
        }
        else if (s_pthreadGetStackAddress != null && s_pthreadGetStackSize != null && s_pthreadIsMainThread != null && s_pthreadIsMainThread() == 0)
        {
            nint self = s_pthreadSelf();
            high = (nuint)s_pthreadGetStackAddress(self);
            low = high - s_pthreadGetStackSize(self);
        }
        else if (s_pthreadGetAttributes != null && s_pthreadAttributesGetStack != null && s_pthreadAttributesDestroy != null
            && IsMainThread(ReadThreadSelfLink()) == false)
        {
            long* attributes = stackalloc long[PthreadAttributesLongs];
            if (s_pthreadGetAttributes(s_pthreadSelf(), attributes) != 0)
            {
                return false;
            }

            void* stack = null;
            nuint size = 0;
            int result = s_pthreadAttributesGetStack(attributes, &stack, &size);
            s_pthreadAttributesDestroy(attributes);
            if (result != 0)
            {
                return false;
            }

            low = (nuint)stack;
            high = low + size;
        }

        // A range that does not hold the caller's own local is no range this thread runs on.
        byte local = 0;
        nuint here = (nuint)(&local);
        if (low < high && here >= low && here < high)
        {
            return true;
        }

        low = 0;
        high = 0;
        return false;
    }

    /// <summary>
    /// Whether the thread the link <c>/proc/thread-self</c> points from is its process's main thread: the link reads
    /// "&lt;pid&gt;/task/&lt;tid&gt;", both in the namespace /proc was mounted in, and the main thread's id is its
    /// process's. Null when the link is missing or reads otherwise.
    /// </summary>
    internal static bool? IsMainThread(string? threadSelfLink)
    {
        string[]? parts = threadSelfLink?.Split('/');
        return parts is [string process, "task", string thread]
            && int.TryParse(process, NumberStyles.None, CultureInfo.InvariantCulture, out int processId)
            && int.TryParse(thread, NumberStyles.None, CultureInfo.InvariantCulture, out int threadId)
            ? processId == threadId
            : null;
    }

    private static string? ReadThreadSelfLink()
    {
        try
        {
            return new FileInfo("/proc/thread-self").LinkTarget;
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    private static void* Export(nint library, string name) =>
        NativeLibrary.TryGetExport(library, name, out nint address) ? (void*)address : null;

    [LibraryImport("kernel32")]
    private static partial void GetCurrentThreadStackLimits(out nuint lowLimit, out nuint highLimit);
}
