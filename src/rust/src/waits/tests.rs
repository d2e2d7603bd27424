use super::*;

#[test]
fn a_stretch_without_cpu_time_is_a_wait_placed_by_the_cpu_time_before_it() {
    let mut w = Waits::new(0.02);
    // busy 0.1 s, then idle from 100.1 to 100.6 (the first idle tick used
    // 2 ms; 4 ms in 0.21 s is still waiting), then busy from 100.61
    let ticks = [
        (100.00, 5.00),
        (100.05, 5.05),
        (100.10, 5.10),
        (100.15, 5.102),
        (100.40, 5.102),
        (100.61, 5.106),
        (100.66, 5.156),
    ];
    for (wall, cpu) in ticks {
        w.tick(wall, cpu, 0.0);
    }
    w.finish();
    assert_eq!(w.start.len(), 1);
    assert!((w.start[0] - 100.102).abs() < 1e-9);
    assert!((w.end[0] - 100.61).abs() < 1e-9);
    assert!((w.cpu[0] - 0.102).abs() < 1e-9);
    assert!((w.total - 0.156).abs() < 1e-9);
}

#[test]
fn short_waits_are_dropped_and_an_open_wait_ends_at_the_last_tick() {
    let mut w = Waits::new(0.05);
    for (wall, cpu) in [(0.0, 0.0), (0.01, 0.0), (0.02, 0.02), (0.03, 0.03)] {
        w.tick(wall, cpu, 0.0);
    }
    assert!(w.start.is_empty());
    for (wall, cpu) in [(0.2, 0.03), (0.5, 0.03)] {
        w.tick(wall, cpu, 0.0);
    }
    w.finish();
    assert_eq!(w.start, vec![0.03]);
    assert_eq!(w.end, vec![0.5]);
    assert!((w.cpu[0] - 0.03).abs() < 1e-12);
}

#[test]
fn time_ready_to_run_without_a_cpu_is_no_wait() {
    let mut w = Waits::new(0.02);
    // 0.3 s without CPU time, of which 0.29 s waiting for a CPU
    for (wall, cpu, queued) in [
        (0.0, 0.0, 0.0),
        (0.1, 0.0, 0.1),
        (0.3, 0.0, 0.29),
        (0.4, 0.1, 0.29),
    ] {
        w.tick(wall, cpu, queued);
    }
    w.finish();
    assert!(w.start.is_empty());
}

#[test]
fn the_watch_sees_a_sleep_of_this_process() {
    if !start_watch(0.005, 0.05) {
        return;
    }
    let before = wall_time();
    std::thread::sleep(Duration::from_millis(300));
    let after = wall_time();
    let waits = stop_watch();
    assert!(!waits.start.is_empty());
    let longest = (0..waits.start.len())
        .max_by(|&a, &b| {
            (waits.end[a] - waits.start[a]).total_cmp(&(waits.end[b] - waits.start[b]))
        })
        .unwrap();
    assert!((waits.start[longest] - before).abs() < 0.05);
    assert!((waits.end[longest] - after).abs() < 0.05);
}

#[test]
fn the_watch_reads_seldom_while_the_process_waits() {
    // every reading is CPU time of the process, in which a tick of Rprof()
    // can fall: a wait of 0.5 s read every 5 ms would take 100 readings
    let first = Duration::from_millis(5);
    let mut pause = first;
    let mut waited = Duration::ZERO;
    let mut readings = 0;
    while waited < Duration::from_millis(500) {
        readings += 1;
        pause = next_pause(pause, first, true);
        waited += pause;
    }
    assert_eq!(readings, 12);
    assert_eq!(pause, Duration::from_millis(50));
    // and it reads every 5 ms again as soon as the process works
    assert_eq!(next_pause(pause, first, false), first);
}
