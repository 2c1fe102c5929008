//! Every option of fio's job files (fio 3.42's HOWTO, with master's zoned and data
//! placement options, and the aliases and undocumented names of its options.c) and what a simulated drive does with it: **implemented** with fio's
//! semantics where it changes what the drive sees or what is reported, **ignored** (accepted,
//! listed once on standard error and in the result's `ssdlab` section) where it cannot change a
//! simulation, or **refused** in one line saying what is not modelled. The job-file reader
//! ([`super::fio`]) asks this table about every key it reads; `ssdlab config fio-options`
//! prints it and docs/fio.md shows it (a test keeps them equal and checks that every option of
//! the HOWTO is here).

/// What the simulator does with an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Read with fio's semantics: it changes the job or its report.
    Implemented,
    /// Accepted with no effect on a simulated drive, and why.
    Ignored(&'static str),
    /// Refused in one line: what is not modelled.
    Refused(&'static str),
}

/// One option under all its names (the first is fio's main one).
#[derive(Clone, Copy, Debug)]
pub struct FioOption {
    pub names: &'static [&'static str],
    pub class: Class,
}

use Class::{Ignored, Implemented, Refused};

const fn o(names: &'static [&'static str], class: Class) -> FioOption {
    FioOption { names, class }
}

// The reasons, shared by the options they cover.
const HOST_CPU: &str = "host CPU, memory and scheduling placement";
const HOST_TIME: &str = "the host's clock and timing of its own work";
const HOST_BUFFERS: &str = "the host's data buffers (a simulated drive keeps no data)";
const HOST_FILES: &str = "how the host names, creates and opens its files";
const HOST_LOGS: &str = "how the host writes and keeps its logs";
const HOST_ENGINE: &str = "how the host engine submits and reaps (each I/O reaches the drive as one command)";
const REPORTING: &str = "what fio prints, not what the drive does";
const NOT_A_DRIVE: &str = "an engine with no block device or file to simulate";
const PI: &str = "end-to-end data protection (no data is kept)";
const VERIFY: &str =
    "verifying data: a simulated drive keeps no data (`ssdlab serve` keeps it: run fio with verify against it)";

/// Every option of fio 3.42's HOWTO, in its order, with master's zoned and FDP options.
pub const OPTIONS: &[FioOption] = &[
    // Units
    o(&["kb_base"], Implemented),
    o(&["unit_base"], Ignored(REPORTING)),
    // Job description
    o(&["name"], Implemented),
    o(&["description"], Ignored(REPORTING)),
    o(&["loops"], Implemented),
    o(&["numjobs"], Implemented),
    // Time related parameters
    o(&["runtime", "timeout"], Implemented),
    o(&["time_based"], Implemented),
    o(&["startdelay"], Implemented),
    o(&["ramp_time"], Implemented),
    o(&["ramp_size"], Refused("a ramp ended by bytes rather than time is not modelled; expected ramp_time")),
    o(&["clocksource"], Ignored(HOST_TIME)),
    o(&["gtod_reduce"], Ignored(HOST_TIME)),
    o(&["gtod_cpu"], Ignored(HOST_TIME)),
    o(&["job_start_clock_id"], Ignored(HOST_TIME)),
    // Target file/device
    o(&["directory"], Ignored(HOST_FILES)),
    o(&["filename"], Ignored(HOST_FILES)),
    o(&["filename_format"], Ignored(HOST_FILES)),
    o(&["unique_filename"], Ignored(HOST_FILES)),
    o(&["filetype"], Ignored(HOST_FILES)),
    o(&["opendir"], Refused("a directory tree of files is not modelled; expected nrfiles and filesize")),
    o(&["lockfile"], Ignored(HOST_FILES)),
    o(&["nrfiles", "nr_files"], Refused("a job over several files is not modelled; expected one region (offset and size)")),
    o(&["openfiles"], Ignored(HOST_FILES)),
    o(&["file_service_type"], Refused("a job over several files is not modelled; expected one region (offset and size)")),
    o(&["ioscheduler"], Ignored("the host's I/O scheduler (requests reach the drive as the job issues them)")),
    o(&["create_serialize"], Ignored(HOST_FILES)),
    o(&["create_fsync"], Ignored(HOST_FILES)),
    o(&["create_on_open"], Ignored(HOST_FILES)),
    o(&["create_only"], Refused("a job that only creates files does no I/O to simulate")),
    o(&["allow_file_create"], Ignored(HOST_FILES)),
    o(&["allow_mounted_write"], Ignored(HOST_FILES)),
    o(&["pre_read"], Ignored(HOST_BUFFERS)),
    o(&["unlink"], Ignored(HOST_FILES)),
    o(&["unlink_each_loop"], Ignored(HOST_FILES)),
    o(&["zonemode"], Implemented),
    o(&["zonerange"], Implemented),
    o(&["zonesize"], Implemented),
    o(&["zonecapacity"], Implemented),
    o(&["zoneskip"], Implemented),
    o(&["read_beyond_wp"], Implemented),
    o(&["max_open_zones"], Implemented),
    o(&["job_max_open_zones"], Implemented),
    o(&["ignore_zone_limits"], Implemented),
    o(&["zone_reset_threshold"], Implemented),
    o(&["zone_reset_frequency"], Implemented),
    o(&["recover_zbd_write_error"], Refused("recovering from write errors: a zoned write error ends the run (with the NVMe status); expected it unset")),
    o(&["write_zone_remainders", "write_zone_remainder"], Implemented),
    o(&["zone_append"], Implemented),
    // I/O type
    o(&["direct"], Ignored("the host's page cache (every I/O reaches the drive)")),
    o(&["buffered"], Ignored("the host's page cache (every I/O reaches the drive)")),
    o(&["readwrite", "rw"], Implemented),
    o(&["rw_sequencer"], Implemented),
    o(&["unified_rw_reporting"], Implemented),
    o(&["randrepeat"], Ignored("the random streams are the run's seed's, the same every run")),
    o(&["allrandrepeat"], Ignored("the random streams are the run's seed's, the same every run")),
    o(&["randseed", "seed"], Implemented),
    o(&["fallocate"], Ignored(HOST_FILES)),
    o(&["fadvise_hint"], Ignored("the host's page cache hints")),
    o(&["write_hint"], Refused("write lifetime hints are not sent to the drive; expected dataplacement=streams with plids")),
    o(&["offset", "fileoffset"], Implemented),
    o(&["offset_align"], Refused("offset_align is not modelled (a percentage offset is aligned down to 4 KiB)")),
    o(&["offset_increment"], Implemented),
    o(&["number_ios"], Implemented),
    o(&["fsync"], Refused("flushes are not modelled")),
    o(&["fdatasync"], Refused("flushes are not modelled")),
    o(&["write_barrier"], Refused("write barriers are not modelled; expected fsync")),
    o(&["sync_file_range"], Refused("sync_file_range is not modelled; expected fsync")),
    o(&["overwrite"], Ignored(HOST_FILES)),
    o(&["end_fsync"], Refused("flushes are not modelled")),
    o(&["end_syncfs"], Refused("flushes are not modelled")),
    o(&["fsync_on_close"], Refused("flushes are not modelled")),
    o(&["rwmixread"], Implemented),
    o(&["rwmixcycle"], Ignored("deprecated in fio, where it has no effect")),
    o(&["rwmixwrite"], Implemented),
    o(&["random_distribution"], Implemented),
    o(&["random_sequence_stride"], Implemented),
    o(&["percentage_sequential"], Implemented),
    o(&["percentage_random"], Implemented),
    o(&["norandommap"], Ignored("random offsets are drawn with repeats, as with norandommap")),
    o(&["softrandommap"], Ignored("random offsets are drawn with repeats, as with norandommap")),
    o(&["random_generator"], Ignored("the random streams are the simulator's own, seeded by the run")),
    o(&["sprandom"], Refused("sprandom's preconditioning is not modelled; expected the run file's [precondition]")),
    o(&["spr_num_regions"], Refused("sprandom's preconditioning is not modelled; expected the run file's [precondition]")),
    o(&["spr_op"], Refused("sprandom's preconditioning is not modelled; expected the run file's [precondition]")),
    o(&["spr_cs"], Refused("sprandom's preconditioning is not modelled; expected the run file's [precondition]")),
    // Block size
    o(&["blocksize", "bs"], Implemented),
    o(&["blocksize_range", "bsrange"], Implemented),
    o(&["bssplit"], Implemented),
    o(&["blocksize_unaligned", "bs_unaligned"], Implemented),
    o(&["bs_is_seq_rand"], Refused("block sizes by sequential and random I/O are not modelled; expected bs by direction")),
    o(&["blockalign", "ba"], Implemented),
    // Buffers and memory
    o(&["zero_buffers"], Ignored(HOST_BUFFERS)),
    o(&["refill_buffers"], Ignored(HOST_BUFFERS)),
    o(&["scramble_buffers"], Ignored(HOST_BUFFERS)),
    o(&["buffer_compress_percentage"], Ignored(HOST_BUFFERS)),
    o(&["buffer_compress_chunk"], Ignored(HOST_BUFFERS)),
    o(&["buffer_pattern"], Ignored(HOST_BUFFERS)),
    o(&["dedupe_percentage"], Ignored(HOST_BUFFERS)),
    o(&["dedupe_mode"], Ignored(HOST_BUFFERS)),
    o(&["dedupe_working_set_percentage"], Ignored(HOST_BUFFERS)),
    o(&["dedupe_global"], Ignored(HOST_BUFFERS)),
    o(&["invalidate"], Ignored("the host's page cache (every I/O reaches the drive)")),
    o(&["sync"], Ignored("how the host opens the file (each write completes as the drive completes it)")),
    o(&["iomem", "mem"], Ignored(HOST_BUFFERS)),
    o(&["iomem_align", "mem_align"], Ignored(HOST_BUFFERS)),
    o(&["hugepage-size"], Ignored(HOST_BUFFERS)),
    o(&["lockmem"], Ignored(HOST_BUFFERS)),
    // I/O size
    o(&["size"], Implemented),
    o(&["io_size", "io_limit"], Implemented),
    o(&["filesize"], Implemented),
    o(&["file_append"], Refused("appending past a file's end is not modelled (the device's space is fixed)")),
    o(&["fill_device", "fill_fs"], Implemented),
    // I/O engine
    o(&["ioengine"], Implemented),
    // I/O engine specific parameters
    o(&["cmdprio_percentage"], Ignored("I/O priorities (the drive serves every command alike)")),
    o(&["cmdprio_class"], Ignored("I/O priorities (the drive serves every command alike)")),
    o(&["cmdprio_hint"], Ignored("I/O priorities (the drive serves every command alike)")),
    o(&["cmdprio"], Ignored("I/O priorities (the drive serves every command alike)")),
    o(&["cmdprio_bssplit"], Ignored("I/O priorities (the drive serves every command alike)")),
    o(&["fixedbufs"], Ignored(HOST_ENGINE)),
    o(&["nonvectored"], Ignored(HOST_ENGINE)),
    o(&["force_async"], Ignored(HOST_ENGINE)),
    o(&["registerfiles"], Ignored(HOST_ENGINE)),
    o(&["sqthread_poll"], Ignored(HOST_ENGINE)),
    o(&["sqthread_poll_cpu"], Ignored(HOST_CPU)),
    o(&["cmd_type"], Ignored(HOST_ENGINE)),
    o(&["cdb_len"], Ignored(HOST_ENGINE)),
    o(&["hipri"], Ignored(HOST_ENGINE)),
    o(&["userspace_reap"], Ignored(HOST_ENGINE)),
    o(&["hipri_percentage"], Ignored(HOST_ENGINE)),
    o(&["nowait"], Ignored(HOST_ENGINE)),
    o(&["uncached"], Ignored("the host's page cache (every I/O reaches the drive)")),
    o(&["atomic"], Ignored("atomic writes: every write is applied whole")),
    o(&["libaio_vectored"], Ignored(HOST_ENGINE)),
    o(&["fdp"], Implemented),
    o(&["dataplacement", "data_placement"], Implemented),
    o(&["plid_select", "fdp_pli_select"], Implemented),
    o(&["plids", "fdp_pli"], Implemented),
    o(&["dp_scheme"], Refused("placement by a scheme file is not modelled; expected plids with plid_select")),
    o(&["md_per_io_size"], Ignored(PI)),
    o(&["pi_act"], Ignored(PI)),
    o(&["pi_chk"], Ignored(PI)),
    o(&["apptag"], Ignored(PI)),
    o(&["apptag_mask"], Ignored(PI)),
    o(&["num_range"], Refused("trims of several ranges in one command are not modelled")),
    o(&["cpuload"], Refused(NOT_A_DRIVE)),
    o(&["cpuchunks"], Refused(NOT_A_DRIVE)),
    o(&["cpumode"], Refused(NOT_A_DRIVE)),
    o(&["exit_on_io_done"], Refused(NOT_A_DRIVE)),
    o(&["namenode"], Refused(NOT_A_DRIVE)),
    o(&["port"], Refused(NOT_A_DRIVE)),
    o(&["hostname"], Refused(NOT_A_DRIVE)),
    o(&["interface"], Refused(NOT_A_DRIVE)),
    o(&["ttl"], Refused(NOT_A_DRIVE)),
    o(&["nodelay"], Refused(NOT_A_DRIVE)),
    o(&["protocol", "proto"], Refused(NOT_A_DRIVE)),
    o(&["listen"], Refused(NOT_A_DRIVE)),
    o(&["pingpong"], Refused(NOT_A_DRIVE)),
    o(&["window_size"], Refused(NOT_A_DRIVE)),
    o(&["mss"], Refused(NOT_A_DRIVE)),
    o(&["donorname"], Refused(NOT_A_DRIVE)),
    o(&["inplace"], Refused(NOT_A_DRIVE)),
    o(&["clustername"], Refused(NOT_A_DRIVE)),
    o(&["rbdname"], Refused(NOT_A_DRIVE)),
    o(&["clientname"], Refused(NOT_A_DRIVE)),
    o(&["conf"], Refused(NOT_A_DRIVE)),
    o(&["busy_poll"], Refused(NOT_A_DRIVE)),
    o(&["touch_objects"], Refused(NOT_A_DRIVE)),
    o(&["rbd_encryption_format"], Refused(NOT_A_DRIVE)),
    o(&["rbd_encryption_passphrase"], Refused(NOT_A_DRIVE)),
    o(&["pool"], Refused(NOT_A_DRIVE)),
    o(&["cont"], Refused(NOT_A_DRIVE)),
    o(&["chunk_size"], Refused(NOT_A_DRIVE)),
    o(&["object_class"], Refused(NOT_A_DRIVE)),
    o(&["skip_bad"], Refused("raw MTD flash is not modelled; expected a block device")),
    o(&["hdfsdirectory"], Refused(NOT_A_DRIVE)),
    o(&["verb"], Refused(NOT_A_DRIVE)),
    o(&["bindname"], Refused(NOT_A_DRIVE)),
    o(&["stat_type"], Refused(NOT_A_DRIVE)),
    o(&["readfua"], Ignored("forced unit access on reads: a read is served from flash or the write buffer as it is")),
    o(&["writefua"], Refused("forced unit access on writes is not modelled; expected fsync")),
    o(&["write_mode"], Implemented),
    o(&["verify_bytchk"], Refused(VERIFY)),
    o(&["read_mode"], Refused("read modes other than read (compare, verify) are not modelled")),
    o(&["verify_mode"], Refused(VERIFY)),
    o(&["sg_write_mode"], Refused("SCSI write modes other than write are not modelled")),
    o(&["stream_id"], Refused("SCSI streams are not modelled; expected dataplacement=streams with plids")),
    o(&["http_host"], Refused(NOT_A_DRIVE)),
    o(&["http_user"], Refused(NOT_A_DRIVE)),
    o(&["http_pass"], Refused(NOT_A_DRIVE)),
    o(&["https"], Refused(NOT_A_DRIVE)),
    o(&["http_mode"], Refused(NOT_A_DRIVE)),
    o(&["http_s3_region"], Refused(NOT_A_DRIVE)),
    o(&["http_s3_key"], Refused(NOT_A_DRIVE)),
    o(&["http_s3_keyid"], Refused(NOT_A_DRIVE)),
    o(&["http_s3_security_token"], Refused(NOT_A_DRIVE)),
    o(&["http_s3_sse_customer_key"], Refused(NOT_A_DRIVE)),
    o(&["http_s3_sse_customer_algorithm"], Refused(NOT_A_DRIVE)),
    o(&["http_s3_storage_class"], Refused(NOT_A_DRIVE)),
    o(&["http_swift_auth_token"], Refused(NOT_A_DRIVE)),
    o(&["http_verbose"], Refused(NOT_A_DRIVE)),
    o(&["http_object_mode"], Refused(NOT_A_DRIVE)),
    o(&["uri"], Refused(NOT_A_DRIVE)),
    o(&["gpu_dev_ids"], Refused(NOT_A_DRIVE)),
    o(&["gpu_dev_id"], Refused(NOT_A_DRIVE)),
    o(&["cuda_io"], Refused(NOT_A_DRIVE)),
    o(&["rocm_io"], Refused(NOT_A_DRIVE)),
    o(&["nfs_url"], Refused(NOT_A_DRIVE)),
    o(&["program"], Refused(NOT_A_DRIVE)),
    o(&["arguments"], Refused(NOT_A_DRIVE)),
    o(&["grace_time"], Refused(NOT_A_DRIVE)),
    o(&["std_redirect"], Refused(NOT_A_DRIVE)),
    o(&["xnvme_async"], Ignored(HOST_ENGINE)),
    o(&["xnvme_sync"], Ignored(HOST_ENGINE)),
    o(&["xnvme_admin"], Ignored(HOST_ENGINE)),
    o(&["xnvme_dev_nsid"], Ignored(HOST_FILES)),
    o(&["xnvme_dev_subnqn"], Ignored(HOST_FILES)),
    o(&["xnvme_mem"], Ignored(HOST_BUFFERS)),
    o(&["xnvme_iovec"], Ignored(HOST_ENGINE)),
    o(&["libblkio_driver"], Ignored(HOST_ENGINE)),
    o(&["libblkio_path"], Ignored(HOST_FILES)),
    o(&["libblkio_pre_connect_props"], Ignored(HOST_ENGINE)),
    o(&["libblkio_num_entries"], Ignored(HOST_ENGINE)),
    o(&["libblkio_queue_size"], Ignored(HOST_ENGINE)),
    o(&["libblkio_pre_start_props"], Ignored(HOST_ENGINE)),
    o(&["libblkio_vectored"], Ignored(HOST_ENGINE)),
    o(&["libblkio_write_zeroes_on_trim"], Refused("write zeroes is not modelled; a trim is a trim")),
    o(&["libblkio_wait_mode"], Ignored(HOST_ENGINE)),
    o(&["libblkio_force_enable_completion_eventfd"], Ignored(HOST_ENGINE)),
    o(&["no_completion_thread"], Ignored(HOST_ENGINE)),
    // I/O depth
    o(&["iodepth"], Implemented),
    o(&["iodepth_batch_submit", "iodepth_batch"], Ignored(HOST_ENGINE)),
    o(&["iodepth_batch_complete_min", "iodepth_batch_complete"], Ignored(HOST_ENGINE)),
    o(&["iodepth_batch_complete_max"], Ignored(HOST_ENGINE)),
    o(&["iodepth_low"], Ignored(HOST_ENGINE)),
    o(&["serialize_overlap"], Refused("holding back I/Os that overlap in-flight ones is not modelled")),
    o(&["io_submit_mode"], Ignored(HOST_ENGINE)),
    // I/O rate
    o(&["thinkcycles"], Refused("think time in CPU cycles is not modelled; expected thinktime")),
    o(&["thinktime"], Implemented),
    o(&["thinktime_spin"], Ignored(HOST_CPU)),
    o(&["thinktime_blocks"], Refused("thinktime_blocks is not modelled (the think time follows every I/O)")),
    o(&["thinktime_blocks_type"], Refused("thinktime_blocks_type is not modelled (think time counts issued blocks)")),
    o(&["thinktime_iotime"], Refused("thinktime_iotime is not modelled; expected thinktime with thinktime_blocks")),
    o(&["rate"], Implemented),
    o(&["rate_min", "ratemin"], Refused("a minimum rate is not checked")),
    o(&["rate_iops"], Implemented),
    o(&["rate_iops_min"], Refused("a minimum rate is not checked")),
    o(&["rate_process"], Implemented),
    o(&["rate_ignore_thinktime"], Refused("rate_ignore_thinktime is not modelled")),
    o(&["rate_cycle", "ratecycle"], Refused("a minimum rate is not checked")),
    // I/O latency
    o(&["latency_target"], Refused("finding the depth that meets a latency target is not modelled; expected a sweep of iodepth")),
    o(&["latency_window"], Refused("finding the depth that meets a latency target is not modelled; expected a sweep of iodepth")),
    o(&["latency_percentile"], Refused("finding the depth that meets a latency target is not modelled; expected a sweep of iodepth")),
    o(&["latency_run"], Refused("finding the depth that meets a latency target is not modelled; expected a sweep of iodepth")),
    o(&["max_latency"], Refused("ending a job at a latency bound is not modelled")),
    // I/O replay
    o(&["write_iolog"], Refused("writing a job's I/O log is not modelled; expected `ssdlab trace convert` of a recorded trace")),
    o(&["read_iolog"], Refused("replaying an iolog from a fio job file is not modelled; expected a run file's [job.trace] with format = \"fio-iolog\"")),
    o(&["read_iolog_chunked"], Ignored("a trace is read as a stream, never whole")),
    o(&["merge_blktrace_file"], Refused("merging blktraces is not modelled; expected `ssdlab trace convert` of each")),
    o(&["merge_blktrace_scalars"], Refused("merging blktraces is not modelled; expected `ssdlab trace convert` of each")),
    o(&["merge_blktrace_iters"], Refused("merging blktraces is not modelled; expected `ssdlab trace convert` of each")),
    o(&["replay_no_stall"], Refused("replaying an iolog from a fio job file is not modelled; expected a run file's [job.trace] with replay = \"closed\"")),
    o(&["replay_time_scale"], Refused("replay_time_scale is not modelled; expected [job.trace] speed")),
    o(&["replay_redirect"], Ignored(HOST_FILES)),
    o(&["replay_align"], Refused("replay_align is not modelled")),
    o(&["replay_scale"], Refused("replay_scale is not modelled")),
    o(&["replay_skip"], Refused("replay_skip is not modelled")),
    // Threads, processes and job synchronization
    o(&["thread"], Ignored(HOST_CPU)),
    o(&["wait_for"], Implemented),
    o(&["comm"], Ignored(HOST_CPU)),
    o(&["nice"], Ignored(HOST_CPU)),
    o(&["prio"], Ignored("the host process's I/O priority (the drive serves every command alike)")),
    o(&["prioclass"], Ignored("the host process's I/O priority (the drive serves every command alike)")),
    o(&["priohint"], Ignored("the host process's I/O priority (the drive serves every command alike)")),
    o(&["cpus_allowed"], Ignored(HOST_CPU)),
    o(&["cpus_allowed_policy"], Ignored(HOST_CPU)),
    o(&["cpumask"], Ignored(HOST_CPU)),
    o(&["numa_cpu_nodes"], Ignored(HOST_CPU)),
    o(&["numa_mem_policy"], Ignored(HOST_CPU)),
    o(&["cgroup"], Ignored(HOST_CPU)),
    o(&["cgroup_weight"], Ignored(HOST_CPU)),
    o(&["cgroup_nodelete"], Ignored(HOST_CPU)),
    o(&["flow_id"], Refused("flow control between jobs is not modelled")),
    o(&["flow"], Refused("flow control between jobs is not modelled")),
    o(&["flow_sleep"], Refused("flow control between jobs is not modelled")),
    o(&["flow_watermark"], Refused("flow control between jobs is not modelled")),
    o(&["stonewall", "wait_for_previous"], Implemented),
    o(&["exitall"], Implemented),
    o(&["exit_what"], Implemented),
    o(&["exec_prerun"], Refused("running host commands is not modelled")),
    o(&["exec_postrun"], Refused("running host commands is not modelled")),
    o(&["uid"], Ignored(HOST_CPU)),
    o(&["gid"], Ignored(HOST_CPU)),
    // Verification
    o(&["verify_only"], Refused(VERIFY)),
    o(&["verifysort"], Refused(VERIFY)),
    o(&["verifysort_nr"], Refused(VERIFY)),
    o(&["do_verify"], Refused(VERIFY)),
    o(&["verify"], Refused(VERIFY)),
    o(&["verify_offset"], Refused(VERIFY)),
    o(&["verify_interval"], Refused(VERIFY)),
    o(&["verify_pattern"], Refused(VERIFY)),
    o(&["verify_pattern_interval"], Refused(VERIFY)),
    o(&["verify_policy"], Refused(VERIFY)),
    o(&["verify_fatal"], Refused(VERIFY)),
    o(&["verify_dump"], Refused(VERIFY)),
    o(&["verify_async"], Refused(VERIFY)),
    o(&["verify_async_cpus"], Refused(VERIFY)),
    o(&["verify_backlog"], Refused(VERIFY)),
    o(&["verify_backlog_batch"], Refused(VERIFY)),
    o(&["verify_state_save"], Refused(VERIFY)),
    o(&["verify_state_load"], Refused(VERIFY)),
    o(&["experimental_verify"], Refused(VERIFY)),
    o(&["verify_write_sequence"], Refused(VERIFY)),
    o(&["verify_header_seed"], Refused(VERIFY)),
    o(&["trim_percentage"], Refused("trimming a share of written blocks to verify them is not modelled")),
    o(&["trim_verify_zero"], Refused(VERIFY)),
    o(&["trim_backlog"], Refused("trimming a share of written blocks to verify them is not modelled")),
    o(&["trim_backlog_batch"], Refused("trimming a share of written blocks to verify them is not modelled")),
    // Steady state
    o(&["steadystate", "ss"], Refused("fio's steady-state detection is not modelled; expected the run file's [precondition] mode = \"steady\"")),
    o(&["steadystate_duration", "ss_dur"], Refused("fio's steady-state detection is not modelled; expected the run file's [precondition] mode = \"steady\"")),
    o(&["steadystate_ramp_time", "ss_ramp"], Refused("fio's steady-state detection is not modelled; expected the run file's [precondition] mode = \"steady\"")),
    o(&["steadystate_check_interval", "ss_interval"], Refused("fio's steady-state detection is not modelled; expected the run file's [precondition] mode = \"steady\"")),
    // Measurements and reporting
    o(&["per_job_logs"], Ignored(HOST_LOGS)),
    o(&["group_reporting"], Implemented),
    o(&["new_group"], Implemented),
    o(&["stats"], Ignored(REPORTING)),
    o(&["write_bw_log"], Implemented),
    o(&["write_lat_log"], Implemented),
    o(&["write_hist_log"], Refused("histogram logs are not written; expected write_lat_log or the JSON's clat bins")),
    o(&["write_iops_log"], Implemented),
    o(&["log_entries"], Ignored(HOST_LOGS)),
    o(&["log_avg_msec"], Implemented),
    o(&["log_hist_msec"], Refused("histogram logs are not written; expected write_lat_log or the JSON's clat bins")),
    o(&["log_hist_coarseness"], Refused("histogram logs are not written; expected write_lat_log or the JSON's clat bins")),
    o(&["log_window_value", "log_max_value"], Refused("log_window_value is not modelled (a log's averaged value is its mean)")),
    o(&["log_offset"], Implemented),
    o(&["log_prio"], Ignored(HOST_LOGS)),
    o(&["log_issue_time"], Refused("log_issue_time is not modelled")),
    o(&["log_compression"], Ignored(HOST_LOGS)),
    o(&["log_compression_cpus"], Ignored(HOST_LOGS)),
    o(&["log_store_compressed"], Ignored(HOST_LOGS)),
    o(&["log_unix_epoch"], Refused("a simulated run has no wall-clock epoch; its logs count from its start")),
    o(&["log_alternate_epoch"], Refused("a simulated run has no wall-clock epoch; its logs count from its start")),
    o(&["log_alternate_epoch_clock_id"], Refused("a simulated run has no wall-clock epoch; its logs count from its start")),
    o(&["block_error_percentiles"], Ignored("no block of a simulated drive fails (block_error_percentiles has nothing to count)")),
    o(&["bwavgtime", "bw_avg_time"], Implemented),
    o(&["iopsavgtime", "iops_avg_time"], Implemented),
    o(&["disk_util"], Ignored(REPORTING)),
    o(&["disable_lat"], Ignored(REPORTING)),
    o(&["disable_clat"], Ignored(REPORTING)),
    o(&["disable_slat"], Ignored(REPORTING)),
    o(&["disable_bw_measurement", "disable_bw"], Ignored(REPORTING)),
    o(&["slat_percentiles"], Ignored(REPORTING)),
    o(&["clat_percentiles"], Ignored(REPORTING)),
    o(&["lat_percentiles"], Ignored(REPORTING)),
    o(&["percentile_list"], Implemented),
    o(&["significant_figures"], Ignored(REPORTING)),
    // Error handling
    o(&["exitall_on_error"], Ignored("no I/O of a simulated conventional namespace fails")),
    o(&["continue_on_error"], Ignored("no I/O of a simulated conventional namespace fails")),
    o(&["ignore_error"], Ignored("no I/O of a simulated conventional namespace fails")),
    o(&["error_dump"], Ignored(REPORTING)),
    // Running predefined workloads
    o(&["profile"], Refused("fio's built-in profiles (act, tiobench) are not modelled; expected their jobs written out")),
    o(&["device-names"], Refused("fio's act profile is not modelled")),
    o(&["load"], Refused("fio's act profile is not modelled")),
    o(&["test-duration"], Refused("fio's act profile is not modelled")),
    o(&["threads-per-queue"], Refused("fio's act profile is not modelled")),
    o(&["read-req-num-512-blocks"], Refused("fio's act profile is not modelled")),
    o(&["large-block-op-kbytes"], Refused("fio's act profile is not modelled")),
    o(&["prep"], Refused("fio's act profile is not modelled")),
    o(&["block"], Refused("fio's tiobench profile is not modelled")),
    o(&["numruns"], Refused("fio's tiobench profile is not modelled")),
    o(&["dir"], Refused("fio's tiobench profile is not modelled")),
    o(&["threads"], Ignored("an option of fio's tiobench profile, which has no effect without profile=tiobench (refused)")),
];

/// The option called `name` (any of its names), if fio has it.
pub fn find(name: &str) -> Option<&'static FioOption> {
    OPTIONS.iter().find(|o| o.names.contains(&name))
}

/// fio's I/O engines whose jobs run here: those that address a block device or a file, whose
/// I/O reaches the simulated drive (the synchronous ones keep one I/O outstanding per job, as
/// fio), and `null`, whose jobs fio runs without a device: here their I/O reaches the simulated
/// drive as any engine's does (the same I/O counts, the drive's timing).
pub const DRIVE_ENGINES: &[&str] = &[
    "sync",
    "psync",
    "vsync",
    "pvsync",
    "pvsync2",
    "io_uring",
    "io_uring_cmd",
    "libaio",
    "posixaio",
    "solarisaio",
    "windowsaio",
    "sg",
    "spdk",
    "xnvme",
    "libblkio",
    "nbd",
    "null",
];

/// What a simulated drive does with `ioengine=NAME`: an engine of [`DRIVE_ENGINES`] runs;
/// any other is refused, saying why.
pub fn engine(name: &str) -> Result<(), String> {
    if DRIVE_ENGINES.contains(&name) {
        return Ok(());
    }
    let why = match name {
        "mmap" | "splice" => "I/O through the host's page cache is not modelled; expected an engine with direct I/O (libaio, io_uring, psync, ...)",
        "net" | "netsplice" | "rdma" | "http" | "rbd" | "rados" | "dfs" | "nfs" | "gfapi" | "gfapi_async" | "libhdfs"
        | "ime_psync" | "ime_psyncv" | "ime_aio" => "a network engine has no drive to simulate; expected an engine that reaches a drive (libaio, io_uring, psync, ...)",
        "cpuio" => "a CPU-burning engine has no drive to simulate; expected an engine that reaches a drive",
        "exec" => "an engine that runs a program has no drive to simulate; expected an engine that reaches a drive",
        "dev-dax" | "libpmem" => "persistent memory is not modelled; expected an engine that reaches a block device",
        "mtd" => "raw MTD flash is not modelled; expected an engine that reaches a block device",
        "libzbc" => "SCSI and ATA zoned disks (ZBC/ZAC) are not modelled; expected an engine that reaches an NVMe zoned namespace (io_uring, io_uring_cmd, spdk, libaio)",
        "falloc" | "ftruncate" | "e4defrag" | "filecreate" | "filestat" | "filedelete" | "dircreate" | "dirstat"
        | "dirdelete" => "file-system operations are not modelled; expected an engine that reads and writes a block device or a file",
        "libcufile" | "libhipfile" => "GPU I/O is not modelled; expected an engine that reaches a drive from the host",
        _ => "an external or unknown engine; expected an engine that reads and writes a block device or a file (libaio, io_uring, psync, ...)",
    };
    Err(format!("{name}: {why}"))
}

/// The table as Markdown: one row per option (its names, its class, why).
pub fn markdown() -> String {
    let mut out = String::from("| option | class | what a simulated drive does with it |\n|---|---|---|\n");
    for opt in OPTIONS {
        let names = opt
            .names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let (class, why) = match opt.class {
            Implemented => ("implemented", "as fio (docs/fio.md)"),
            Ignored(w) => ("ignored", w),
            Refused(w) => ("refused", w),
        };
        out.push_str(&format!("| {names} | {class} | {} |\n", why.replace('|', "\\|")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio 3.42's HOWTO names each of these (tests/data/fio-3.42-options.txt, read off the
    /// HOWTO at the commit it names): every one has an answer here.
    #[test]
    fn every_option_of_fio_s_howto_is_in_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/fio-3.42-options.txt");
        let text = std::fs::read_to_string(path).unwrap();
        let names: Vec<&str> = text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).collect();
        assert!(names.len() > 380, "{}", names.len());
        let missing: Vec<&&str> = names.iter().filter(|n| find(n).is_none()).collect();
        assert!(missing.is_empty(), "not in the table: {missing:?}");
        // And the table holds nothing but fio's options (the HOWTO's, or options.c's aliases
        // and undocumented names, or master's zone_append of its SPDK plugin's files).
        let extra = [
            "fileoffset",
            "data_placement",
            "ratemin",
            "ratecycle",
            "write_zone_remainder",
            "flow_watermark",
            "gpu_dev_id",
            "percentage_sequential",
            "rwmixcycle",
            "verifysort",
            "verifysort_nr",
            "zone_append",
            "timeout",
            "nr_files",
            "bw_avg_time",
            "iops_avg_time",
            "seed",
        ];
        for opt in OPTIONS {
            for n in opt.names {
                assert!(names.contains(n) || extra.contains(n), "{n} is not fio's");
            }
        }
    }

    #[test]
    fn the_markdown_has_a_row_per_option_with_its_class() {
        let md = markdown();
        assert_eq!(md.lines().count(), 2 + OPTIONS.len());
        assert!(
            md.contains("| `cpus_allowed` | ignored | host CPU, memory and scheduling placement |"),
            "{md}"
        );
        assert!(md.contains("| `offset_increment` | implemented |"));
        assert!(md.lines().any(|l| l.starts_with("| `ramp_size` | refused |")));
    }

    #[test]
    fn engines_that_reach_a_drive_run_and_the_others_say_why_not() {
        for e in DRIVE_ENGINES {
            assert_eq!(engine(e), Ok(()), "{e}");
        }
        assert_eq!(
            engine("net").unwrap_err(),
            "net: a network engine has no drive to simulate; expected an engine that reaches a drive (libaio, io_uring, psync, ...)"
        );
        assert!(engine("mmap").unwrap_err().contains("page cache"));
        assert!(engine("nosuch").unwrap_err().contains("unknown engine"));
    }

    #[test]
    fn every_name_is_listed_once() {
        let mut seen = std::collections::BTreeSet::new();
        for opt in OPTIONS {
            for n in opt.names {
                assert!(seen.insert(*n), "{n} twice");
            }
        }
    }
}
