namespace SlimPool.Scheduling;

/// <summary>
/// A <see cref="Parker"/> for a background thread (the starvation guard, the slow-item watch) that announces when it is
/// about to park, so the threads that may have to wake it pay one read of a line nobody writes while it runs.
/// </summary>
/// <remarks>
/// The owner announces with a full fence (<see cref="Announce"/>), then re-checks its reason to sleep, then parks; a
/// waker makes its change visible with a full fence of its own, then calls <see cref="WakeIfParked"/>, which reads the
/// announcement. Of the two, at least one sees the other's write: the owner's re-check sees the change and it does not
/// park, or the waker sees the announcement and unparks it (a permit granted before the park is kept, see
/// <see cref="Parker"/>). Of several wakers that see it, one takes the announcement and unparks; the rest only read.
/// </remarks>
internal sealed class AnnouncedParker
{
    private readonly Parker _parker = new();
    private PaddedInt _parked; // 1 while the owner is parked or about to park

    /// <summary>The owner: about to park. A full fence; the owner re-checks its reason to sleep after it.</summary>
    public void Announce() => Interlocked.Exchange(ref _parked.Value, 1);

    /// <summary>The owner, after it parked or decided not to.</summary>
    public void Withdraw() => Volatile.Write(ref _parked.Value, 0);

    /// <summary>The owner: parks until unparked.</summary>
    public void Park() => _parker.Park();

    /// <summary>The owner: parks until unparked or <paramref name="millisecondsTimeout"/> has passed.</summary>
    public bool Park(int millisecondsTimeout) => _parker.Park(millisecondsTimeout);

    /// <summary>A waker, after its own full fence: unparks the owner if it announced itself parked.</summary>
    public void WakeIfParked()
    {
        if (Volatile.Read(ref _parked.Value) != 0 && Interlocked.Exchange(ref _parked.Value, 0) != 0)
        {
            _parker.Unpark();
        }
    }

    /// <summary>Unparks the owner whether or not it announced itself (stopping it).</summary>
    public void Unpark() => _parker.Unpark();
}
