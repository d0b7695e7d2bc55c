import Testing

/// Evidence, without `#if swift(…)`, that this target is compiled in Swift 6 mode.
@Suite("Language mode")
struct LanguageModeTests {
    @Test("the target compiles in Swift 6 language mode")
    func swift6Mode() {
        // Bare `/…/` regex literals are on in Swift 6 mode only; Swift 5 reads `/` as an
        // operator and does not compile this line.
        #expect("buy milk".matches(of: /[a-z]+/).count == 2)
        // Swift 6 mode makes `#file` the short `#fileID`; Swift 5 keeps the full path.
        #expect("\(#file)" == "\(#fileID)")
        #expect("\(#file)" != "\(#filePath)")
    }
}
