using System.Runtime.InteropServices;

namespace SlimPool.Queues;

/// <summary>
/// The address range of the calling thread's stack, as the operating system reserved it: every address a local of this
/// thread can have lies in it. Linux and other systems with <c>pthread_getattr_np</c> (glibc, musl), macOS and Windows;
/// elsewhere, or where a call fails, it reports none.
/// </summary>
internal static unsafe partial class ThreadStackBounds
{
    // pthread_attr_t is 56 bytes on x64 (glibc and musl) and 64 on arm64; room to spare, 8-byte aligned.
    private const int PthreadAttributesLongs = 32;

    private static readonly delegate* unmanaged<nint> s_pthreadSelf;
    private static readonly delegate* unmanaged<nint, void*, int> s_pthreadGetAttributes;
    private static readonly delegate* unmanaged<void*, void**, nuint*, int> s_pthreadAttributesGetStack;
    private static readonly delegate* unmanaged<void*, int> s_pthreadAttributesDestroy;
    private static readonly delegate* unmanaged<nint, void*> s_pthreadGetStackAddress; // macOS: the stack's top
    private static readonly delegate* unmanaged<nint, nuint> s_pthreadGetStackSize;

#pragma warning disable CA1810 // the exports are looked up once, together, and only where they can exist
    static ThreadStackBounds()
#pragma warning restore CA1810
    {
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        // The process's global symbols: libc's (and libpthread's, on a glibc older than 2.34) are among them.
        nint process = NativeLibrary.GetMainProgramHandle();
        s_pthreadSelf = (delegate* unmanaged<nint>)Export(process, "pthread_self");
        if (OperatingSystem.IsMacOS())
        {
            s_pthreadGetStackAddress = (delegate* unmanaged<nint, void*>)Export(process, "pthread_get_stackaddr_np");
            s_pthreadGetStackSize = (delegate* unmanaged<nint, nuint>)Export(process, "pthread_get_stacksize_np");
        }
        else
        {
            s_pthreadGetAttributes = (delegate* unmanaged<nint, void*, int>)Export(process, "pthread_getattr_np");
            s_pthreadAttributesGetStack = (delegate* unmanaged<void*, void**, nuint*, int>)Export(process, "pthread_attr_getstack");
            s_pthreadAttributesDestroy = (delegate* unmanaged<void*, int>)Export(process, "pthread_attr_destroy");
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
        else if (s_pthreadGetStackAddress != null && s_pthreadGetStackSize != null)
        {
            nint self = s_pthreadSelf();
            high = (nuint)s_pthreadGetStackAddress(self);
            low = high - s_pthreadGetStackSize(self);
        }
        else if (s_pthreadGetAttributes != null && s_pthreadAttributesGetStack != null && s_pthreadAttributesDestroy != null)
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

    private static void* Export(nint library, string name) =>
        NativeLibrary.TryGetExport(library, name, out nint address) ? (void*)address : null;

    [LibraryImport("kernel32")]
    private static partial void GetCurrentThreadStackLimits(out nuint lowLimit, out nuint highLimit);
}
