//! `[[uart_input]]`: bytes fed into a UART's receive line (docs/stimuli.md "UART input").

use super::{err, Tab, R};
use crate::input_file::{read_input, DATA_LIMIT};
use crate::scenario_io::UartInputSpec;
use std::path::Path;

/// The receive line's rate unless the scenario says otherwise.
pub const DEFAULT_BAUD: i64 = 115_200;

pub fn uart_input(t: &Tab, base_dir: &Path) -> R<UartInputSpec> {
    t.only(&["uart", "at", "baud", "bytes", "text", "file"])?;
    let uart = t.str("uart")?.unwrap_or("uart0").to_string();
    let at_ps = t.duration("at")?.unwrap_or(0);
    let baud = t.int("baud", 1, 100_000_000)?.unwrap_or(DEFAULT_BAUD) as u32;
    let given: Vec<&str> = ["bytes", "text", "file"].into_iter().filter(|k| t.get(k).is_some()).collect();
    if given.len() != 1 {
        return err(&t.path, "give exactly one of bytes, text, file");
    }
    let bytes = match given[0] {
        "bytes" => hex(t.req_str("bytes")?).or_else(|e| err(t.key("bytes"), e))?,
        "text" => t.req_str("text")?.as_bytes().to_vec(),
        _ => read_input(&base_dir.join(t.req_str("file")?), DATA_LIMIT).or_else(|e| err(t.key("file"), e))?,
    };
    if bytes.is_empty() {
        return err(t.key(given[0]), "no bytes to send");
    }
    Ok(UartInputSpec { uart, at_ps, baud, bytes })
}

/// Hex digit pairs; spaces, tabs, newlines and `:` between the pairs are ignored.
fn hex(s: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<char> = s.chars().filter(|c| !c.is_whitespace() && *c != ':').collect();
    if !digits.len().is_multiple_of(2) {
        return Err("an odd number of hex digits".into());
    }
    digits
        .chunks(2)
        .map(|p| {
            let pair: String = p.iter().collect();
            u8::from_str_radix(&pair, 16).map_err(|_| format!("'{pair}' is not a hex byte"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario_io::parse_io_scenario;

    fn parse(s: &str) -> R<crate::scenario_io::IoScenario> {
        parse_io_scenario(&s.parse().unwrap(), Path::new("."))
    }

    #[test]
    fn the_three_forms_and_the_defaults() {
        let sc = parse(
            "[[uart_input]]\nbytes = \"02 0a:ff\"\n[[uart_input]]\nuart = \"uart1\"\nat = \"2ms\"\nbaud = 9600\ntext = \"hi\"\n",
        )
        .unwrap();
        assert_eq!(
            sc.uart_inputs[0],
            UartInputSpec { uart: "uart0".into(), at_ps: 0, baud: 115_200, bytes: vec![2, 10, 255] }
        );
        assert_eq!(sc.uart_inputs[1].uart, "uart1");
        assert_eq!(sc.uart_inputs[1].at_ps, 2_000_000_000);
        assert_eq!(sc.uart_inputs[1].baud, 9600);
        assert_eq!(sc.uart_inputs[1].bytes, b"hi");
    }

    #[test]
    fn errors_name_the_key() {
        let e = |s: &str| parse(s).unwrap_err().to_string();
        assert_eq!(e("[[uart_input]]\nbytes = \"0g\"\n"), "uart_input[0].bytes: '0g' is not a hex byte");
        assert_eq!(e("[[uart_input]]\nbytes = \"012\"\n"), "uart_input[0].bytes: an odd number of hex digits");
        assert_eq!(e("[[uart_input]]\ntext = \"\"\n"), "uart_input[0].text: no bytes to send");
        assert_eq!(e("[[uart_input]]\n"), "uart_input[0]: give exactly one of bytes, text, file");
        assert_eq!(
            e("[[uart_input]]\ntext = \"a\"\nbytes = \"00\"\n"),
            "uart_input[0]: give exactly one of bytes, text, file"
        );
        assert_eq!(e("[[uart_input]]\ntext = \"a\"\nbaud = 0\n"), "uart_input[0].baud: must be in 1..=100000000");
        assert!(e("[[uart_input]]\ntext = \"a\"\nspeed = 1\n").starts_with("uart_input[0].speed: unknown key"));
        assert!(e("[[uart_input]]\nfile = \"/nonexistent/desc.bin\"\n").starts_with("uart_input[0].file: "));
    }
}
