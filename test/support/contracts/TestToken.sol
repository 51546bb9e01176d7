// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A 6-decimal ERC-20 for tests (USDC-like). `feeBasisPoints` > 0 makes it a fee-on-transfer token: the recipient gets
/// less than was sent and the Transfer log to it carries the amount that actually arrived.
contract TestToken {
    string public name;
    string public symbol;
    uint8 public constant decimals = 6;
    uint256 public totalSupply;
    uint256 public feeBasisPoints;
    address public immutable feeSink;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint256 feeBasisPoints_) {
        name = name_;
        symbol = symbol_;
        feeBasisPoints = feeBasisPoints_;
        feeSink = msg.sender;
    }

    function mint(address to, uint256 amount) external {
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "allowance");
            allowance[from][msg.sender] = allowed - amount;
        }
        _move(from, to, amount);
        return true;
    }

    /// Many transfers in one transaction (the bench fills blocks with it).
    function batchTransfer(address[] calldata to, uint256[] calldata amounts) external {
        require(to.length == amounts.length, "length");
        for (uint256 i = 0; i < to.length; i++) _move(msg.sender, to[i], amounts[i]);
    }

    function _move(address from, address to, uint256 amount) private {
        require(balanceOf[from] >= amount, "balance");
        uint256 fee = (amount * feeBasisPoints) / 10_000;
        balanceOf[from] -= amount;
        balanceOf[to] += amount - fee;
        emit Transfer(from, to, amount - fee);
        if (fee > 0) {
            balanceOf[feeSink] += fee;
            emit Transfer(from, feeSink, fee);
        }
    }
}
