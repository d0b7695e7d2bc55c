import Testing

/// Global mutable state without isolation: Swift 6 rejects it ("not concurrency-safe
/// because it is nonisolated global shared mutable state"), Swift 5 accepts it. That this
/// file compiles shows the target is built in Swift 5 language mode.
var languageModeChecks = 0

/// Evidence, without `#if swift(…)`, that this target is compiled in Swift 5 mode.
@Suite("Language mode")
struct LanguageModeTests {
    @Test("the target compiles in Swift 5 language mode")
    func swift5Mode() {
        languageModeChecks += 1
        #expect(languageModeChecks >= 1)
        // Swift 6 mode makes `#file` the short `#fileID`; Swift 5 keeps the full path.
        #expect("\(#file)" == "\(#filePath)")
        #expect("\(#file)" != "\(#fileID)")
    }
}
