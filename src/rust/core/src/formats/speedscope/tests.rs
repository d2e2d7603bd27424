use super::*;
use crate::ops::sample_set::tests::Columns;
use pretty_assertions::assert_eq;

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn write(c: &Columns, with_time: bool, is_base: [bool; 2]) -> String {
    let set = SampleSet::build(&c.input(with_time)).unwrap();
    let labels = SpeedscopeLabels {
        frame_name: &strings(&["f", "main"]),
        frame_file: &strings(&["a.R", ""]),
        frame_line: &[3, 0],
        location_frame: &[0, 1, 0],
        type_name: &strings(&["samples", "cpu"]),
        type_unit: &strings(&["count", "nanoseconds"]),
        default_type: 1,
        source_id: &[1, 2],
        source_name: &strings(&["x.out", "y.out"]),
        source_is_base: &is_base,
        name: "x.out",
        exporter: "test",
    };
    let mut out = Vec::new();
    write_speedscope(&set, &labels, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn time_order_with_runs_merged_or_stacks_summed() {
    // location 1 = f, 2 = main, 3 = f again (same frame)
    let c = Columns::of(
        &[
            (1, 0.0, vec![1, 2], vec![1.0, 10.0]),
            (1, 0.1, vec![3, 2], vec![1.0, 0.0]),
            (1, 0.2, vec![2], vec![1.0, 5.0]),
            (1, 0.3, vec![1, 2], vec![1.0, 5.0]),
        ],
        3,
    );
    let timed = write(&c, true, [false, false]);
    assert_eq!(
        timed,
        concat!(
            r#"{"$schema":"https://www.speedscope.app/file-format-schema.json","exporter":"test","name":"x.out","#,
            r#""activeProfileIndex":1,"shared":{"frames":[{"name":"f","file":"a.R","line":3},{"name":"main"}]},"#,
            r#""profiles":[{"type":"sampled","name":"samples (count): x.out","unit":"none","startValue":0,"endValue":4,"#,
            r#""samples":[[1,0],[1],[1,0]],"weights":[2,1,1]},"#,
            r#"{"type":"sampled","name":"cpu (nanoseconds): x.out","unit":"nanoseconds","startValue":0,"endValue":20,"#,
            r#""samples":[[1,0],[1],[1,0]],"weights":[10,5,5]}]}"#,
            "\n"
        )
    );
    let summed = write(&c, false, [false, false]);
    assert!(
        summed.contains(r#""samples":[[1,0],[1]],"weights":[3,1]"#),
        "{summed}"
    );
    assert!(
        summed.contains(r#""samples":[[1,0],[1]],"weights":[15,5]"#),
        "{summed}"
    );
}

#[test]
fn diff_base_written_with_its_own_values() {
    let c = Columns::of(
        &[
            (1, 0.0, vec![1, 2], vec![2.0, 1.0]),
            (2, 0.0, vec![2], vec![-3.0, 0.0]),
        ],
        3,
    );
    let out = write(&c, true, [false, true]);
    assert!(out.contains(r#""name":"samples (count), diff base: y.out","unit":"none","startValue":0,"endValue":3,"samples":[[1]],"weights":[3]"#), "{out}");
    // the cpu profile of the base has no sample with a value: left out
    assert_eq!(out.matches("\"type\":\"sampled\"").count(), 3);
}

#[test]
fn frames_out_of_range_are_errors() {
    let c = Columns::of(&[(1, 0.0, vec![1], vec![1.0, 1.0])], 1);
    let set = SampleSet::build(&c.input(false)).unwrap();
    let names = strings(&["f"]);
    let labels = SpeedscopeLabels {
        frame_name: &names,
        frame_file: &names,
        frame_line: &[0],
        location_frame: &[1],
        type_name: &strings(&["a", "b"]),
        type_unit: &strings(&["count", "count"]),
        default_type: 0,
        source_id: &[1],
        source_name: &names,
        source_is_base: &[false],
        name: "",
        exporter: "",
    };
    assert_eq!(
        write_speedscope(&set, &labels, &mut Vec::new())
            .unwrap_err()
            .kind(),
        "invalid"
    );
    let ragged = SpeedscopeLabels {
        location_frame: &[0],
        frame_line: &[],
        ..labels
    };
    assert_eq!(
        write_speedscope(&set, &ragged, &mut Vec::new())
            .unwrap_err()
            .kind(),
        "argument"
    );
}
