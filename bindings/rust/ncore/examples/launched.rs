//! The Rust program of the launcher tests (tests/launchers/run.sh): joins
//! the job with `Communicator::from_env` alone, allreduces rank + 1 and
//! prints "launched: rank R of N sum S".

use ncore::{Communicator, Config, DataType, DeviceMemory, RedOp};

fn main() -> Result<(), ncore::Error> {
    let comm = Communicator::from_env(Some(&Config::new().timeout_ms(60_000)))?;
    let (rank, size) = (comm.rank()?, comm.size()?);
    let mut memory = DeviceMemory::alloc(std::mem::size_of::<i32>(), comm.backend()?)?;
    memory.write(0, &[rank + 1])?;
    comm.allreduce_in_place(&mut memory.as_slice(DataType::INT32), 1, RedOp::SUM, None)?;
    let mut sum = [0i32];
    memory.read(0, &mut sum)?;
    println!("launched: rank {rank} of {size} sum {}", sum[0]);
    Ok(())
}
