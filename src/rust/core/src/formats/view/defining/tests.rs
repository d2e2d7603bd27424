use super::*;
use proptest::prelude::*;

// Frames (locations 1..=6): name, file (0: none), line.
// 1: f A:10, 2: g B:5, 3: h A:10, 4: h C:3, 5: k (no file), 6: f D:1.
const NAME: [u32; 6] = [1, 2, 3, 3, 4, 1];
const FILE: [u32; 6] = [1, 2, 1, 3, 0, 4];
const LINE: [i32; 6] = [10, 5, 10, 3, 0, 1];

/// Stack rows (sample, depth, location) of samples given innermost first.
fn rows(samples: &[&[i32]]) -> (Vec<i32>, Vec<i32>, Vec<i32>) {
    let (mut sid, mut depth, mut lid) = (vec![], vec![], vec![]);
    for (i, stack) in samples.iter().enumerate() {
        for (d, &l) in stack.iter().enumerate() {
            sid.push(i as i32 + 1);
            depth.push(d as i32 + 1);
            lid.push(l);
        }
    }
    (sid, depth, lid)
}

fn files_of(sid: &[i32], depth: &[i32], lid: &[i32]) -> Result<Vec<Option<u32>>> {
    defining_files(&DefiningInput {
        sample_id: sid,
        depth,
        location_id: lid,
        frame_location_id: &[1, 2, 3, 4, 5, 6],
        frame_name: &NAME,
        frame_file: &FILE,
        frame_line: &LINE,
    })
}

#[test]
fn a_name_has_the_file_most_of_its_trusted_frames_have() {
    // Sample 1: h at f's line (A:10, under another name: untrusted), f, g.
    // f: location 1 three times (A), location 6 twice (D): A. g: B. h: only
    // location 4 is trusted: C. k has no file.
    let (sid, depth, lid) = rows(&[&[3, 1, 2], &[4, 1], &[6, 5], &[6, 2], &[1]]);
    let expected = vec![Some(0), Some(1), Some(3), Some(3), None, Some(0)];
    assert_eq!(files_of(&sid, &depth, &lid).unwrap(), expected);
    // the rows in another order (callers found by matching): the same
    let order = [9, 3, 0, 8, 1, 5, 2, 4, 6, 7];
    let pick = |c: &[i32]| order.iter().map(|&i| c[i]).collect::<Vec<_>>();
    assert_eq!(
        files_of(&pick(&sid), &pick(&depth), &pick(&lid)).unwrap(),
        expected
    );
}

#[test]
fn equally_frequent_files_go_to_the_first_seen() {
    // f: location 6 (D) first, then location 1 (A), twice each.
    let (sid, depth, lid) = rows(&[&[6], &[1], &[6], &[1]]);
    let files = files_of(&sid, &depth, &lid).unwrap();
    assert_eq!(files[0], Some(5));
    assert_eq!(files[5], Some(5));
}

#[test]
fn a_caller_at_an_unknown_location_leaves_the_frame_untrusted() {
    let (sid, depth, lid) = rows(&[&[4, 99]]);
    assert_eq!(files_of(&sid, &depth, &lid).unwrap()[3], None);
    assert!(files_of(&sid, &depth[1..], &lid).is_err());
}

proptest! {
    /// Random stack rows (ids missing, repeated, negative or NA, depths in any
    /// order) give a file per frame or an error, never a panic; a frame's
    /// file is a frame of the same name with a file.
    #[test]
    fn random_rows_give_files_or_errors(
        stack in prop::collection::vec(
            (prop_oneof![0..4i32, Just(i32::MIN)], prop_oneof![-1..4i32, Just(i32::MIN), Just(i32::MAX)], -1..8i32),
            0..30,
        ),
        frames in prop::collection::vec((0..4i32, 0..3u32, 0..3u32, 0..3i32), 0..8),
    ) {
        let sid: Vec<i32> = stack.iter().map(|s| s.0).collect();
        let depth: Vec<i32> = stack.iter().map(|s| s.1).collect();
        let lid: Vec<i32> = stack.iter().map(|s| s.2).collect();
        let frame_location_id: Vec<i32> = frames.iter().map(|f| f.0).collect();
        let name: Vec<u32> = frames.iter().map(|f| f.1).collect();
        let file: Vec<u32> = frames.iter().map(|f| f.2).collect();
        let line: Vec<i32> = frames.iter().map(|f| f.3).collect();
        let result = defining_files(&DefiningInput {
            sample_id: &sid,
            depth: &depth,
            location_id: &lid,
            frame_location_id: &frame_location_id,
            frame_name: &name,
            frame_file: &file,
            frame_line: &line,
        });
        if let Ok(files) = result {
            prop_assert_eq!(files.len(), frames.len());
            for (i, found) in files.iter().enumerate() {
                if let Some(r) = found {
                    prop_assert_eq!(name[*r as usize], name[i]);
                    prop_assert!(file[*r as usize] != 0);
                }
            }
        }
    }
}

#[test]
fn frames_without_files_have_none() {
    let (sid, depth, lid) = rows(&[&[1, 2], &[3]]);
    let files = defining_files(&DefiningInput {
        sample_id: &sid,
        depth: &depth,
        location_id: &lid,
        frame_location_id: &[1, 2, 3],
        frame_name: &[1, 2, 3],
        frame_file: &[0, 0, 0],
        frame_line: &[4, 5, 6],
    })
    .unwrap();
    assert_eq!(files, vec![None, None, None]);
}
