/// Runs libFuzzer with `testOneInput` as the target; the corresponding C function is `LLVMFuzzerRunDriver`.
///
/// SwiftPM gives an executable target's entry point a name of its own (`<Module>_main`, aliased to `main` at link
/// time), so the fuzz targets have an `@main` that calls this instead of relying on libFuzzer's `main`.
public func runFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(llvmFuzzerRunDriver(&argc, &argv, testOneInput))
}

@_silgen_name("LLVMFuzzerRunDriver")
private func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

@_silgen_name("exit")
private func exit(_ status: Int32) -> Never
